// Request and response shapes of a workspace's email channel. Secrets go in and never come out:
// the password and the DKIM private key are answered as `passwordSet` / `privateKeySet`.
import { createPrivateKey } from 'node:crypto';
import { z } from 'zod';
import { emailAddress } from '../../http/email.ts';
import '../../core/zodOpenApi.ts';
import { Timestamp } from '../../http/validation.ts';

const Address = emailAddress({ message: 'must be an email address', maxLength: 320 });

/** A DNS name or an IP literal (IPv6 in brackets or bare): no scheme, port or path. */
export const SmtpHost = z
  .string()
  .trim()
  .toLowerCase()
  .min(1, 'must not be empty')
  .max(253, 'must be at most 253 characters')
  .regex(
    /^(\[[0-9a-f:.]+\]|[0-9a-f:.]*:[0-9a-f:.]*|[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?)$/,
    {
      message: 'must be a host name or IP address, without scheme, port or path',
    },
  )
  .openapi({ example: 'smtp.example.com' });

const Label = (max: number) =>
  z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

const PrivateKeyPem = z
  .string()
  .max(16_384, 'must be at most 16384 characters')
  .refine((pem) => {
    try {
      return createPrivateKey(pem).asymmetricKeyType !== undefined;
    } catch {
      return false;
    }
  }, 'must be a PEM private key (RSA or Ed25519)');

const DkimBody = z.object({
  domain: z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/, 'must be a domain name'),
  selector: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$/, 'must be a DKIM selector (letters, digits, . _ -)')
    .max(63, 'must be at most 63 characters'),
  privateKey: PrivateKeyPem.optional().openapi({
    description: 'PEM. May be left out to keep the stored key when domain and selector are unchanged.',
  }),
});

/** Where the token of the message goes in `unsubscribeMailto`. */
export const TOKEN_PLACEHOLDER = '{token}';

const UnsubscribeMailto = z
  .string()
  .trim()
  .max(320, 'must be at most 320 characters')
  .refine((value) => {
    const [local = '', domain = '', ...rest] = value.split('@');
    const address = `${local.replace(TOKEN_PLACEHOLDER, 'token')}@${domain}`;
    return rest.length === 0 && !domain.includes('{') && Address.safeParse(address).success;
  }, `must be an email address, with ${TOKEN_PLACEHOLDER} at most once in its local part`);

export const PutEmailConfigBody = z
  .object({
    smtpUrl: z.string().max(2048, 'must be at most 2048 characters').optional().openapi({
      description:
        'Instead of host, port, secure, username and password: `smtp://user:pass@host:587` or `smtps://…:465`.',
      example: 'smtps://apikey:secret@smtp.example.com:465',
    }),
    host: SmtpHost.optional(),
    port: z
      .number()
      .int()
      .min(1)
      .max(65535)
      .optional()
      .openapi({ description: 'Default 465 when secure, else 587.' }),
    secure: z.boolean().optional().openapi({
      description:
        'TLS from the start (port 465). When false, STARTTLS is used if offered. Default: port is 465.',
    }),
    username: Label(320).nullable().optional(),
    password: z
      .string()
      .min(1, 'must not be empty')
      .max(1024, 'must be at most 1024 characters')
      .nullable()
      .optional()
      .openapi({
        description:
          'Left out: the stored password is kept if host and username are unchanged (else dropped, so it ' +
          'is never sent to another server). null: removes it.',
      }),
    fromEmail: Address.openapi({ example: 'news@acme.example' }),
    fromName: Label(200).nullable().optional().openapi({ example: 'Acme' }),
    replyTo: Address.nullable().optional(),
    dkim: DkimBody.nullable()
      .optional()
      .openapi({ description: 'Left out or null: messages are not DKIM-signed by us.' }),
    unsubscribeMailto: UnsubscribeMailto.nullable()
      .optional()
      .openapi({
        description:
          'An address for List-Unsubscribe `<mailto:…>` beside the one-click URL (left out or null: none). ' +
          "`{token}` in its local part is replaced by the message's unsubscribe token; the subject " +
          'carries the token too (`unsubscribe <token>`), so a plain address also names the message.',
        example: 'unsubscribe+{token}@acme.example',
      }),
  })
  .openapi('EmailChannelInput', {
    example: {
      host: 'smtp.example.com',
      port: 587,
      secure: false,
      username: 'apikey',
      password: 'secret',
      fromEmail: 'news@acme.example',
      fromName: 'Acme',
    },
  });
export type PutEmailConfigBody = z.output<typeof PutEmailConfigBody>;

export const EmailConfigSchema = z
  .object({
    channel: z.literal('email'),
    host: z.string(),
    port: z.number().int(),
    secure: z.boolean(),
    username: z.string().nullable(),
    passwordSet: z.boolean(),
    fromEmail: z.string(),
    fromName: z.string().nullable(),
    replyTo: z.string().nullable(),
    dkim: z.object({ domain: z.string(), selector: z.string(), privateKeySet: z.boolean() }).nullable(),
    unsubscribeMailto: z.string().nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .openapi('EmailChannel', {
    example: {
      channel: 'email',
      host: 'smtp.example.com',
      port: 587,
      secure: false,
      username: 'apikey',
      passwordSet: true,
      fromEmail: 'news@acme.example',
      fromName: 'Acme',
      replyTo: null,
      dkim: { domain: 'acme.example', selector: 'sb1', privateKeySet: true },
      unsubscribeMailto: 'unsubscribe+{token}@acme.example',
      createdAt: '2025-01-01T12:00:00.000Z',
      updatedAt: '2025-01-01T12:00:00.000Z',
    },
  });

export const TestEmailBody = z
  .object({ to: Address.openapi({ example: 'you@acme.example' }) })
  .openapi('EmailTestInput');

export const TestEmailResult = z
  .object({
    accepted: z.array(z.string()),
    response: z.string().openapi({ description: "The SMTP server's reply to the message." }),
    messageId: z.string(),
  })
  .openapi('EmailTestResult', {
    example: {
      accepted: ['you@acme.example'],
      response: '250 2.0.0 Ok: queued as 4F1A2',
      messageId: '<msg_01J…@acme.example>',
    },
  });
