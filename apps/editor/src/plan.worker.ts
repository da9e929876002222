// Plans the pack being edited against the workspace's copy off the main thread, so a keystroke
// with the plan preview open never waits for the planner (tens of milliseconds on a large pack).
// The copy comes once per read, the pack as a patch per edit; the answer is the plan in words.
import { servePackWork } from './model/packWorker.js';
import { planView } from './model/planView.js';

servePackWork(planView);
