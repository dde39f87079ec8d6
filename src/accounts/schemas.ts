import { z } from 'zod';
import { emailAddress } from '../http/email.ts';
import { Timestamp } from '../http/validation.ts';

export const Email = emailAddress({ message: 'must be a valid email address', maxLength: 254 });

export const RegisterBody = z
  .strictObject({
    name: z.string().trim().min(1, 'is required').max(100, 'must be at most 100 characters'),
    email: Email,
    password: z.string().min(8, 'must be at least 8 characters').max(128, 'must be at most 128 characters'),
  })
  .openapi('RegisterRequest');

export const SigninBody = z
  .strictObject({
    email: z.string().min(1).max(254),
    password: z.string().min(1).max(1024),
  })
  .openapi('SigninRequest');

export const UserSchema = z
  .object({ id: z.string(), name: z.string(), email: z.string(), createdAt: Timestamp })
  .openapi('User');

export const SessionSchema = z
  .object({
    user: UserSchema,
    workspaces: z.array(
      z
        .object({ id: z.string(), name: z.string(), role: z.enum(['ADMIN', 'MEMBER']) })
        .openapi('WorkspaceSummary'),
    ),
  })
  .openapi('Session');
