import { z } from 'zod';
import { Timestamp } from '../http/validation.ts';

export const Email = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.email({ message: 'must be a valid email address' }).max(254))
  .openapi({ type: 'string', format: 'email', example: 'ada@example.com' });

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
