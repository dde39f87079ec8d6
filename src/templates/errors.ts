// One error type for every template failure, parse or render, with the position in the template's
// source so a caller can answer "step 2, subject, line 3: undefined filter: evil".
import { AssertionError, LiquidError } from 'liquidjs';
import { BudgetError } from './budget.ts';

/** An email's parts, and a push notification's. */
export type TemplateField = 'subject' | 'preheader' | 'html' | 'text' | 'title' | 'body' | 'url' | 'icon';

export class TemplateError extends Error {
  readonly line: number;
  readonly column: number;
  /** Which part failed; set by renderEmail and by push rendering, absent for single-source renders. */
  field?: TemplateField;

  constructor(message: string, line: number, column: number) {
    super(message);
    this.name = 'TemplateError';
    this.line = line;
    this.column = column;
  }

  /** The plain shape validateTemplate answers and callers put in problem details. */
  toJSON(): { line: number; column: number; message: string } {
    return { line: this.line, column: this.column, message: this.message };
  }
}

// liquidjs appends ", line:3, col:5" to its messages; the position is kept in numbers instead.
const POSITION_SUFFIX = /, line:\d+, col:\d+$/;

/** A LiquidError as a TemplateError; anything else is a bug of ours and is rethrown as is. */
export function toTemplateError(error: unknown): TemplateError {
  if (error instanceof TemplateError) return error;
  // The parse length limit is asserted before any token exists: the whole source is at fault.
  // So is a render's budget when its whole output is counted, after the last tag.
  if (error instanceof AssertionError || error instanceof BudgetError)
    return new TemplateError(error.message, 1, 1);
  if (!LiquidError.is(error)) throw error;
  const [line, column] = error.token.getPosition();
  const message = (error.originalError?.message ?? error.message).replace(POSITION_SUFFIX, '');
  return new TemplateError(message, line, column);
}
