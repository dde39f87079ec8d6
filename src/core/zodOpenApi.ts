// Adds `.openapi()` to zod schemas. Imported by every module that defines schemas with it
// (directly or through validation.ts), so it holds whichever entry point loads first: the web
// app, the worker or the CLI, which never loads the OpenAPI registry.
import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

extendZodWithOpenApi(z);
