import { z } from 'zod';
import { metadataSchema } from '../http/request.schemas';

/** Request schemas of the cancel routes (api-reference §5.5): metadata only (the SDK sends `{}`). */
export const createCancelSchema = z.object({ metadata: metadataSchema.optional() }).strict();

export const updateCancelSchema = z.object({ metadata: metadataSchema.optional() }).strict();
