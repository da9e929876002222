// Simulates a contact through the pack being edited off the main thread (the Simulate panel), so
// an edit with the panel open never waits for the simulator. The settings come when they change,
// the pack as a patch per edit; the answer is the timeline and the event's subjects.
import { servePackWork } from './model/packWorker.js';
import { simulationView } from './model/simulation.js';

servePackWork(simulationView);
