import { z } from 'zod';
import { emailAddress } from '../http/email.ts';
import { Timestamp } from '../http/validation.ts';

export const Email = emailAddress({ message: 'must be a valid email address', maxLength: 254 });

/** The rules of every new password: at registration, on a change and on a reset. */
export const NewPassword = z
  .string()
  .min(8, 'must be at least 8 characters')
  .max(128, 'must be at most 128 characters');

export const UserName = z.string().trim().min(1, 'is required').max(100, 'must be at most 100 characters');

export const RegisterBody = z
  .strictObject({
    name: UserName,
    email: Email,
    password: NewPassword,
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

export const PasswordResetRequestBody = z.strictObject({ email: Email }).openapi('PasswordResetRequest');

export const PasswordResetAnswer = z
  .object({
    byEmail: z.boolean().openapi({
      description:
        'true: if an account has this email, a link is on its way to it (the same answer whether or not one has). ' +
        'false: this server sends no mail (SYSTEM_SMTP_URL is unset): ask an operator for a link (`switchboard admin reset-link`).',
    }),
  })
  .openapi('PasswordResetAnswer');

export const PasswordResetCompleteBody = z
  .strictObject({
    token: z.string().min(1, 'is required').max(200, 'must be at most 200 characters').openapi({
      description: 'The `token` query parameter of the link the mail (or an operator) gave.',
    }),
    password: NewPassword,
  })
  .openapi('PasswordResetCompleteRequest');
