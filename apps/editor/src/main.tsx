import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '@xyflow/react/dist/style.css';
import './styles.css';
import { App } from './ui/App.js';
import { EditorStore } from './model/store.js';
import { tidyUp } from './model/layout.js';
import { renderCounts } from './ui/renderCounts.js';
import { applyTheme } from './ui/theme.js';

applyTheme();

const store = new EditorStore();
// Exposed for the end-to-end tests and the benchmark, which drive and inspect the editor.
(window as unknown as { __editor: EditorStore }).__editor = store;
(window as unknown as { __editorModel: unknown }).__editorModel = { tidyUp };
(window as unknown as { __editorRenders: typeof renderCounts }).__editorRenders = renderCounts;

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App store={store} />
  </StrictMode>,
);
