import { ResponseError } from 'univapay-node';

/** The error envelope of an SDK call that must fail; fails the test when the call succeeds. */
export async function sdkError(promise: Promise<unknown>): Promise<ResponseError['errorResponse']> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ResponseError) return error.errorResponse;
    throw error;
  }
  throw new Error('expected the SDK call to fail');
}
