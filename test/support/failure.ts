/** What a call that must fail rejected with; a call that succeeds fails the test. */
export async function failure(promise: PromiseLike<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}
