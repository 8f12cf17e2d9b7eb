/** What a synchronous call threw (undefined when it returned): for tests that check many bad calls in a row. */
export function thrown(call: () => unknown): unknown {
  try {
    call();
  } catch (error) {
    return error;
  }
  return undefined;
}
