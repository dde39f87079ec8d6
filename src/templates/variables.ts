// The data a template sees. Everything is optional: a template renders whatever it is given, and a
// missing value renders empty (`{{ contact.firstName | default: "there" }}` supplies a fallback).
import { z } from 'zod';

const JsonObject = z.record(z.string(), z.unknown());

export const TemplateVariablesSchema = z.object({
  contact: z
    .object({
      email: z.string().nullish(),
      firstName: z.string().nullish(),
      lastName: z.string().nullish(),
      phone: z.string().nullish(),
      attributes: JsonObject.optional(),
      leadScore: z.number().optional(),
    })
    .optional(),
  /** The event that triggered the campaign (absent for broadcasts and transactional messages). */
  event: z.object({ type: z.string(), metadata: JsonObject.optional() }).optional(),
  campaign: z.object({ id: z.string(), name: z.string() }).optional(),
  workspace: z.object({ name: z.string() }).optional(),
  message: z.object({ id: z.string() }).optional(),
  unsubscribe_url: z.string().optional(),
});

export type TemplateVariables = z.infer<typeof TemplateVariablesSchema>;
