import { defineRule } from './rule.js';
import { EFFECTS } from '../behaviour/effects.js';
import { blockKindsOfRules, flowOfRules, type FlowAutomation } from '../behaviour/flow.js';
import { waitMinutes } from '../behaviour/waits.js';
import { clock, DAY_NAMES, firingMoments, hasWindow, inWindow, minutesUntilOpen, windowWords } from '../behaviour/window.js';

const MINUTES_A_DAY = 1440;
/** Offsets kept per block: past this many ways of reaching it, the block is not judged. */
const MAX_OFFSETS = 16;

export default defineRule({
  meta: {
    code: 'flow/outside-send-window',
    severity: 'warning',
    description: "A message step that a time-fixed trigger and fixed waits always put outside the automation's send window.",
    docs: 'For an automation that starts at set times (`trigger.schedule` with a cron of numbers, `trigger.date_reached` with a `time_of_day`) and has a send window (`send_window_start`/`end`, `send_window_days`): a message block (send email, send SMS, AI message) that every firing time, plus the fixed waits on every way to it, lands outside the window. The service holds such a send until the window opens, so it goes out later than the waits say; the message names when. A wait with `until` postpones a step to a time of its own, and a wait whose length the model cannot read leaves the block unjudged.',
  },
  check(ctx) {
    // Only a trigger at set times fixes when a step lands; without one in the pack, the flow model is not built.
    const kinds = blockKindsOfRules(ctx);
    if (!kinds.has('trigger.schedule') && !kinds.has('trigger.date_reached')) return;
    for (const a of flowOfRules(ctx).automations) {
      if (!hasWindow(a.settings) || !(a.kinds.has('trigger.schedule') || a.kinds.has('trigger.date_reached'))) continue;
      for (const t of a.triggers) {
        const moments = firingMoments(a.nodes[t].kind, a.nodes[t].config);
        if (!moments) continue;
        for (const [n, offsets] of offsetsFrom(a, t)) {
          const landings = moments.days.flatMap((d) =>
            moments.minutes.flatMap((m) =>
              offsets.map((o) => ({ day: (d + Math.floor((m + o) / MINUTES_A_DAY)) % 7, minute: (m + o) % MINUTES_A_DAY })),
            ),
          );
          if (landings.some((l) => inWindow(a.settings, l.day, l.minute))) continue;
          const l = landings[0];
          const open = minutesUntilOpen(a.settings, l.day, l.minute);
          const held =
            open === undefined
              ? 'the window never opens'
              : `the service holds it until the window opens (${DAY_NAMES[(l.day + Math.floor((l.minute + open) / MINUTES_A_DAY)) % 7]} ${clock((l.minute + open) % MINUTES_A_DAY)}), ${hours(open)} later than its waits say`;
          const waits =
            offsets.length === 1 && offsets[0] === 0 ? 'with no wait before it' : `after waits of ${offsets.map(hours).join(' or ')}`;
          ctx.report({
            pointer: a.nodes[n].pointer,
            message: `${a.nodes[n].kind} node "${a.nodes[n].id}" in "${a.name}" always sends outside its send window (${windowWords(a.settings)}): the trigger fires ${moments.words}, and ${waits} it lands ${DAY_NAMES[l.day]} ${clock(l.minute)}; ${held}.`,
            related: [{ pointer: a.nodes[t].pointer, message: `the trigger fires ${moments.words}` }],
            hint: 'Change the schedule or the waits so the message lands inside the window, or wait until a time inside it (control.wait with until).',
          });
        }
      }
    }
  },
});

/** A length of time in words: `1 day`, `35 h 30 min`, `45 min`. */
function hours(m: number): string {
  if (m > 0 && m % MINUTES_A_DAY === 0) return `${m / MINUTES_A_DAY} day${m === MINUTES_A_DAY ? '' : 's'}`;
  const h = Math.floor(m / 60);
  return [h ? `${h} h` : '', m % 60 || !h ? `${m % 60} min` : ''].filter(Boolean).join(' ');
}

/**
 * The message blocks reachable from trigger `t`, each with the fixed minutes of waiting on the
 * ways to it (deduplicated, at most MAX_OFFSETS); a way through a wait postponed to a time of its
 * own (`until`) or of a length the model cannot read leaves that block out.
 */
function offsetsFrom(a: FlowAutomation, t: number): Map<number, number[]> {
  const offsets = new Map<number, Set<number>>();
  const unjudged = new Set<number>();
  const stack: [number, number | undefined][] = [[t, 0]];
  const seen = new Set<string>();
  while (stack.length) {
    const [n, at] = stack.pop()!;
    const key = `${n} ${at}`;
    if (seen.has(key)) continue;
    // Too many ways through the graph to follow: nothing of it is judged.
    if (seen.size > 50 * a.nodes.length) return new Map();
    seen.add(key);
    const node = a.nodes[n];
    const effects = EFFECTS.get(node.kind);
    if (effects?.message) {
      if (at === undefined) unjudged.add(n);
      else offsets.set(n, (offsets.get(n) ?? new Set()).add(at));
    }
    let next = at;
    if (effects?.control === 'wait') {
      const w = waitMinutes(node.config);
      next = at === undefined || w === undefined ? undefined : at + w;
    }
    for (const { to } of node.next) stack.push([to, next]);
  }
  const out = new Map<number, number[]>();
  for (const [n, s] of offsets)
    if (!unjudged.has(n) && s.size <= MAX_OFFSETS)
      out.set(
        n,
        [...s].sort((x, y) => x - y),
      );
  return out;
}
