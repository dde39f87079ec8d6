// Receiving an import's file from the console's upload form (multipart/form-data, busboy): the
// form's CSRF token and kind come first, then the file, streamed into the database a chunk at a
// time as it arrives (the request is paused while a chunk is written), never whole in memory. A
// file over IMPORT_UPLOAD_MAX_BYTES, an empty one, or an upload cut short leaves nothing behind.
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import type { Request } from 'express';
import type { AppContext } from '../core/context.ts';
import { newId } from '../db/ids.ts';
import { validCsrf } from '../http/html.ts';
import { guessMapping } from './mapping.ts';
import { columnsOf, wholeHead } from './preview.ts';
import type { Format } from './read.ts';
import { deleteImport, insertChunk, insertUpload, markUploaded } from './uploadQueries.ts';

/** Bytes a chunk row holds (TOAST stores it out of line, compressed). */
const CHUNK_BYTES = 1024 * 1024;
const KINDS = new Set(['contacts', 'events']);

export type UploadOutcome =
  | { ok: true; importId: string }
  | { ok: false; status: 403 | 400 | 413; message: string };

type Target = { workspaceId: string; userId: string };

/** From the name, else from the first character: `{` starts NDJSON, anything else is CSV. */
function formatOf(fileName: string, first: Buffer): Format {
  if (/\.csv$/i.test(fileName)) return 'csv';
  if (/\.(nd)?jsonl?$/i.test(fileName)) return 'ndjson';
  return first
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart()
    .startsWith('{')
    ? 'ndjson'
    : 'csv';
}

/** A file name as shown on pages: its last path part, without control characters, at most 200 characters. */
function cleanName(name: string | undefined): string {
  const base = (name ?? '').split(/[\\/]/).pop() ?? '';
  return (
    [...base]
      .filter((char) => char.charCodeAt(0) >= 0x20)
      .join('')
      .slice(0, 200) || 'upload'
  );
}

export const sizeText = (bytes: number) =>
  bytes >= 1024 * 1024
    ? `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`
    : bytes >= 1024
      ? `${Math.round(bytes / 1024)} KB`
      : `${bytes} bytes`;

/** Writes the file's chunks as they come; returns the import's id, or why there is none. */
async function storeFile(
  app: AppContext,
  target: Target,
  input: {
    kind: 'contacts' | 'events';
    fileName: string;
    chosen: boolean;
    file: Readable & { truncated?: boolean };
  },
): Promise<UploadOutcome> {
  const id = newId('import');
  let created = false;
  let format: Format = 'csv';
  let head: Buffer | null = null;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let total = 0;
  let seq = 0;
  const flush = async () => {
    if (pendingBytes === 0) return;
    const bytes = Buffer.concat(pending);
    pending = [];
    pendingBytes = 0;
    if (!created) {
      format = formatOf(input.fileName, bytes);
      await insertUpload(app.db, {
        ...target,
        id,
        kind: input.kind,
        format,
        fileName: input.fileName,
        createdBy: target.userId,
      });
      created = true;
    }
    head ??= Buffer.from(bytes.subarray(0, CHUNK_BYTES));
    await insertChunk(app.db, target.workspaceId, id, seq++, bytes);
  };
  try {
    for await (const data of input.file as AsyncIterable<Buffer>) {
      total += data.length;
      pending.push(data);
      pendingBytes += data.length;
      if (pendingBytes >= CHUNK_BYTES) await flush();
    }
    if (input.file.truncated) {
      if (created) await deleteImport(app.db, target.workspaceId, id);
      const limit = sizeText(app.config.IMPORT_UPLOAD_MAX_BYTES);
      return {
        ok: false,
        status: 413,
        message: `The file is larger than the ${limit} the console takes: import it with \`switchboard import\`.`,
      };
    }
    if (total === 0)
      return {
        ok: false,
        status: 400,
        message: input.chosen ? 'The file is empty.' : 'Choose a file to import.',
      };
    await flush();
    const columns = columnsOf(format, wholeHead(head!, total));
    const targets = format === 'csv' ? guessMapping(input.kind, columns) : [];
    await markUploaded(app.db, target.workspaceId, id, { fileBytes: total, columns, targets });
    return { ok: true, importId: id };
  } catch (error) {
    if (created) await deleteImport(app.db, target.workspaceId, id).catch(() => {});
    throw error;
  }
}

/** Reads the upload form; the file is stored only when the CSRF token and the kind came before it. */
export function receiveUpload(app: AppContext, req: Request, target: Target): Promise<UploadOutcome> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        limits: {
          files: 1,
          fields: 10,
          parts: 12,
          fieldSize: 1024,
          fileSize: app.config.IMPORT_UPLOAD_MAX_BYTES,
        },
      });
    } catch {
      resolve({ ok: false, status: 400, message: 'The form was not sent as a file upload.' });
      return;
    }
    // No prototype: a field named `__proto__` or `constructor` is only a field.
    const fields: Record<string, string> = Object.create(null);
    let stored: Promise<UploadOutcome> | null = null;
    parser.on('field', (name, value) => {
      fields[name] = value;
    });
    parser.on('file', (_name, file, info) => {
      if (stored) {
        file.resume();
        return;
      }
      req.body = fields;
      if (!validCsrf(req)) {
        file.resume();
        stored = Promise.resolve({ ok: false, status: 403, message: 'This form could not be checked.' });
        return;
      }
      if (!KINDS.has(fields.kind ?? '')) {
        file.resume();
        stored = Promise.resolve({
          ok: false,
          status: 400,
          message: 'Choose what the file holds: contacts or events.',
        });
        return;
      }
      stored = storeFile(app, target, {
        kind: fields.kind as 'contacts' | 'events',
        fileName: cleanName(info.filename),
        chosen: Boolean(info.filename),
        file,
      });
      // Failures are read once the form is whole ('close').
      stored.catch(() => {});
    });
    // A form cut short or malformed (the client went away mid-upload): what was stored is deleted
    // by storeFile, which sees its file stream fail too.
    parser.on('error', () =>
      resolve({ ok: false, status: 400, message: 'The upload was cut short: try again.' }),
    );
    parser.on('close', () => {
      req.body = fields;
      if (stored) stored.then(resolve, reject);
      else if (!validCsrf(req))
        resolve({ ok: false, status: 403, message: 'This form could not be checked.' });
      else resolve({ ok: false, status: 400, message: 'Choose a file to import.' });
    });
    req.pipe(parser);
  });
}
