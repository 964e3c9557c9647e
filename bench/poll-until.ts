/**
 * `read()` again every 5 ms until it gives a value or the wall clock passes `deadline`: the value,
 * or null. The benches read a page's own stamp this way, so what they time is the page's clock,
 * and the polling adds at most its interval to when the stamp is seen, not to the stamp.
 */
export async function pollUntil<T>(read: () => Promise<T | null>, deadline: number): Promise<T | null> {
  let value = await read();
  while (value === null && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 5));
    value = await read();
  }
  return value;
}
