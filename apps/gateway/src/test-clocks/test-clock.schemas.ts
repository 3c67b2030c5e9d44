import { z } from 'zod';
import { instant } from '../http/request.schemas';

/** Request schemas of the test clock routes (docs/subscriptions.md, "Test clocks"). */

/** POST /test_clocks */
export const createTestClockSchema = z
  .object({ frozen_time: instant, name: z.string().trim().min(1).max(100).nullish() })
  .strict();

/** POST /test_clocks/{id}/advance */
export const advanceTestClockSchema = z.object({ frozen_time: instant }).strict();
