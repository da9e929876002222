// Typing with a panel open: `count` keystrokes in the focused field (an "x", then a Backspace,
// and so on), each waited for until the text `watched` (an expression read in the page) changes.
// For each, the time until then, and the longest gap between two animation frames from the key
// press on: what blocked the page longest (a frame is 16.7 ms; a gap well past it is work on the
// main thread the page could not paint through).
export async function typeAndWatch(page, { count, watched }) {
  await page.evaluate(() => {
    window.__frames = [];
    const tick = (t) => (window.__frames.push(t), requestAnimationFrame(tick));
    requestAnimationFrame(tick);
  });
  const times = [];
  const frames = [];
  for (let i = 0; i < count; i++) {
    const before = await page.evaluate(watched);
    const t0 = Date.now();
    const from = await page.evaluate(() => performance.now());
    await page.keyboard.press(i % 2 ? 'Backspace' : 'x');
    await page.waitForFunction(`(${watched}) !== ${JSON.stringify(before)}`, null, { polling: 'raf', timeout: 30000 });
    times.push(Date.now() - t0);
    await page.waitForTimeout(50);
    frames.push(
      await page.evaluate((since) => {
        const f = window.__frames.filter((t) => t >= since);
        let longest = 0;
        for (let k = 1; k < f.length; k++) longest = Math.max(longest, f[k] - f[k - 1]);
        return Math.round(longest * 10) / 10;
      }, from),
    );
  }
  return { times, frames };
}
