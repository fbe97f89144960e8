import { z } from 'zod';
import { matrixJsonSchema } from './matrix-document.js';
import { statusJsonSchema } from './status-document.js';
import { usageJsonSchema } from './usage-document.js';

/** `ferry status --json`: one image (status IMAGE), images × stores (--matrix), or the stores' use (--usage); docs/cli.md. */
export const statusCommandJsonSchema = z.union([statusJsonSchema, matrixJsonSchema, usageJsonSchema]);
