import { ConnectError } from '@connectrpc/connect';

/** The ConnectError a call fails with (fails the test if it succeeds). */
export async function rpcError(call: Promise<unknown>): Promise<ConnectError> {
  try {
    await call;
  } catch (err) {
    if (err instanceof ConnectError) return err;
    throw err;
  }
  throw new Error('expected the call to fail');
}
