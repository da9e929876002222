// What the Simulate panel asks of core and shows: its settings, core's timeline for them (or what
// keeps it from running, in words) and the subjects the chosen event can name. Plain functions, run
// in the simulation worker (simulate.worker.ts) and, where no worker can start, on the main thread.
import { analyseFlow, simulate, simulationEvents, type Pack, type Timeline } from '@setup-pack/core';

export interface SimulateSettings {
  event: string;
  subject: string;
  contact: string;
  at: string;
  timeZone: string;
  days: number;
  /** When the contact replies (RFC 3339), or '' for no reply. */
  replyAt: string;
}

const localZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

export const defaultSimulation = (): SimulateSettings => ({
  event: 'contact_created',
  subject: '',
  contact: JSON.stringify({ first_name: 'Rosa', last_name: 'Diaz', tags: [] }, null, 2),
  at: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
  timeZone: localZone(),
  days: 30,
  replyAt: '',
});

/** The timeline for the settings, or what keeps it from running, in words. */
export function runSimulation(pack: Pack, s: SimulateSettings): { timeline?: Timeline; problem?: string } {
  let contact: unknown;
  try {
    contact = JSON.parse(s.contact);
  } catch (e) {
    return { problem: `The contact is not JSON: ${(e as Error).message}` };
  }
  try {
    return {
      timeline: simulate(pack, {
        event: s.event,
        subject: s.subject || undefined,
        contact,
        at: s.at,
        timeZone: s.timeZone,
        days: s.days,
        ...(s.replyAt.trim() ? { replyAt: s.replyAt.trim() } : {}),
      }),
    };
  } catch (e) {
    const field = (e as { field?: string }).field;
    return { problem: `${field ? `${field}: ` : ''}${(e as Error).message}` };
  }
}

/** The subjects an event can name: the pack's items (and listed references) of its type, by key and name. */
export function subjectsFor(pack: Pack, event: string): { key: string; name: string }[] {
  const type = simulationEvents().find((e) => e.event === event)?.subject;
  if (!type) return [];
  const { flow } = analyseFlow(pack);
  if (type === 'automation') return flow.automations.map((a) => ({ key: a.key, name: a.name }));
  return [...flow.names].filter(([k]) => k.startsWith(`${type}:`)).map(([k, name]) => ({ key: k.slice(type.length + 1), name }));
}

/** Everything the panel shows for the pack and settings: the timeline or its problem, and the event's subjects. */
export function simulationView(
  pack: Pack,
  s: SimulateSettings,
): { timeline?: Timeline; problem?: string; subjects: { key: string; name: string }[] } {
  return { ...runSimulation(pack, s), subjects: subjectsFor(pack, s.event) };
}
