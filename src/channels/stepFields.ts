// The field rules channels' campaign steps share: bounded text, required text, http(s) URLs.
import { z } from 'zod';
import '../core/zodOpenApi.ts';

export const stepText = (max: number) => z.string().max(max, `must be at most ${max} characters`);

export const RequiredText = (max: number) =>
  stepText(max).refine((value) => value.trim().length > 0, 'must not be blank');

export const HttpUrl = stepText(2048).refine((value) => {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}, 'must be an http(s) URL');
