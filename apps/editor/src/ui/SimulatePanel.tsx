// The Simulate panel: pick an event, its subject and a contact (typed in, or one of the connected
// workspace's), and read core's timeline of what the pack does to that contact (simulate, the
// effects model). Where a condition the contact does not decide forked the timeline, a path is
// picked by its choices. A step opens its automation
// with the block selected; "Show path" selects every block the path passed in an automation, so the
// path lights up on the canvas; a step that starts another automation links to it.
import { useState } from 'react';
import { simulationEvents, type Pack, type Timeline, type TimelinePath } from '@setup-pack/core';
import { defaultSimulation, simulationView, type SimulateSettings } from '../model/simulation.js';
import { usePackWorker } from './usePackWorker.js';
import { WorkspaceContact } from './WorkspaceContact.js';

export { defaultSimulation, runSimulation, type SimulateSettings } from '../model/simulation.js';

const simulationWorker = () => new Worker(new URL('../simulate.worker.ts', import.meta.url), { type: 'module' });

export function SimulatePanel({
  pack,
  onStep,
  onPath,
  onClose,
}: {
  pack: Pack;
  /** Opens automation `key` with block `node` selected ('' for its trigger). */
  onStep: (automation: string, node: string) => void;
  /** Selects every block the timeline passed in automation `key`. */
  onPath: (automation: string, nodes: string[]) => void;
  onClose: () => void;
}) {
  const [s, setS] = useState<SimulateSettings>(defaultSimulation);
  const set = (patch: Partial<SimulateSettings>) => setS((x) => ({ ...x, ...patch }));
  // Worked out in a worker of its own: simulating the pack at every limit takes longer than a frame.
  const result = usePackWorker(simulationWorker, pack, s, simulationView).answer ?? { subjects: [] };
  const subjects = result.subjects;
  const t = result.timeline;
  return (
    <section className="simulate-panel" aria-label="Simulate">
      <h2>Simulate a contact</h2>
      <div className="simulate-form">
        <label>
          Event{' '}
          <select value={s.event} onChange={(e) => set({ event: e.target.value, subject: '' })}>
            {simulationEvents().map((e) => (
              <option key={e.event} value={e.event}>
                {e.event.replace(/_/g, ' ')}
              </option>
            ))}
          </select>
        </label>
        {subjects.length > 0 && (
          <label>
            Names{' '}
            <select value={s.subject} onChange={(e) => set({ subject: e.target.value })} aria-label="Event subject">
              <option value="">(any)</option>
              {subjects.map((x) => (
                <option key={x.key} value={x.key}>
                  {x.name}
                </option>
              ))}
            </select>
          </label>
        )}
        <label>
          At <input value={s.at} onChange={(e) => set({ at: e.target.value })} aria-label="When the event happens (RFC 3339)" />
        </label>
        <label>
          Time zone <input value={s.timeZone} onChange={(e) => set({ timeZone: e.target.value })} />
        </label>
        <label>
          Days <input type="number" min={1} max={366} value={s.days} onChange={(e) => set({ days: Number(e.target.value) || 1 })} />
        </label>
        <label>
          Reply at{' '}
          <input
            value={s.replyAt}
            placeholder="no reply"
            onChange={(e) => set({ replyAt: e.target.value })}
            aria-label="When the contact replies (RFC 3339; empty for no reply)"
          />
        </label>
        <label className="simulate-contact">
          Contact (JSON, as the API returns one)
          <textarea rows={4} value={s.contact} onChange={(e) => set({ contact: e.target.value })} />
        </label>
        <WorkspaceContact onContact={(contact) => set({ contact })} />
      </div>
      {result.problem && (
        <p className="error" role="alert">
          {result.problem}
        </p>
      )}
      {t && <TimelineView t={t} onStep={onStep} onPath={onPath} />}
      <p>
        <button onClick={onClose}>Close</button>
      </p>
    </section>
  );
}

function TimelineView({
  t,
  onStep,
  onPath,
}: {
  t: Timeline;
  onStep: (a: string, n: string) => void;
  onPath: (a: string, n: string[]) => void;
}) {
  const [picked, setPicked] = useState(0);
  // A re-run may have fewer paths than the one picked: show the first then.
  const shown = picked < t.paths.length ? picked : 0;
  const path = t.paths[shown];
  return (
    <div data-testid="timeline">
      <p className="simulate-summary" role="status">
        <strong>{t.summary.words}.</strong>
      </p>
      {t.paths.length > 1 && <PathPicker t={t} shown={shown} onPick={setPicked} />}
      {path.loop && (
        <p className="error" role="alert" data-testid="simulate-loop">
          Loop: {path.loop.message}
        </p>
      )}
      {t.assumptions.map((a) => (
        <p key={a} className="help">
          Assumed: {a}
        </p>
      ))}
      <ShowPath path={path} onPath={onPath} />
      <Steps path={path} onStep={onStep} onPick={setPicked} />
    </div>
  );
}

/** One button per path, named by its number and titled by its choices; the shown path's choices in words. */
function PathPicker({ t, shown, onPick }: { t: Timeline; shown: number; onPick: (i: number) => void }) {
  return (
    <div className="simulate-paths" role="group" aria-label="Paths">
      <p className="help">
        {t.paths.length} paths: a condition the contact&apos;s fields do not decide forks the timeline.{' '}
        {t.paths.map((x, i) => (
          <button key={i} aria-pressed={i === shown} title={x.choices.join('; ')} onClick={() => onPick(i)}>
            Path {i + 1}
          </button>
        ))}
      </p>
      <p className="help" data-testid="simulate-choices">
        Path {shown + 1}: {t.paths[shown].choices.join('; ')}. {t.paths[shown].summary.words}.
      </p>
    </div>
  );
}

function ShowPath({ path, onPath }: { path: TimelinePath; onPath: (a: string, n: string[]) => void }) {
  const automations = [...new Set(path.steps.map((x) => x.automation))];
  if (!automations.length) return null;
  const nodesOf = (key: string) => [...new Set(path.steps.filter((x) => x.automation === key && x.node).map((x) => x.node))];
  return (
    <p className="help">
      Show path:{' '}
      {automations.map((a) => (
        <button key={a} onClick={() => onPath(a, nodesOf(a))}>
          {path.steps.find((x) => x.automation === a)!.automationName}
        </button>
      ))}
    </p>
  );
}

function Steps({ path, onStep, onPick }: { path: TimelinePath; onStep: (a: string, n: string) => void; onPick: (i: number) => void }) {
  return (
    <ol className="timeline">
      {path.steps.map((x, i) => (
        <li key={i} className={x.message ? 'message' : undefined}>
          <button className="link" onClick={() => onStep(x.automation, x.node)}>
            <time>{x.at.slice(0, 16).replace('T', ' ')}</time> {x.automationName}
            {x.node ? ` › ${x.node}` : ''}
          </button>{' '}
          {x.does}
          {x.branch && (
            <span className="help">
              {' '}
              → {x.branch.handle}: {x.branch.why}
            </span>
          )}
          {x.forks?.map((f) => (
            <span key={f.path}>
              {' '}
              <button className="link" onClick={() => onPick(f.path)}>
                → {f.handle}: path {f.path + 1}
              </button>
            </span>
          ))}
          {x.starts?.map((k) => (
            <button key={k} className="link" onClick={() => onStep(k, '')}>
              {' '}
              → opens {k}
            </button>
          ))}
          {x.assuming && <span className="help"> (if {x.assuming})</span>}
        </li>
      ))}
    </ol>
  );
}
