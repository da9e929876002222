// How often the costly parts of the page were rendered or rebuilt, read by the browser tests
// (window.__editorRenders) to check that typing beside many findings leaves them alone.
export const renderCounts = {
  /** Renders of the diagnostics panel's rows (and so of its virtualiser and grouping). */
  findingRows: 0,
  /** Finding indexes built (every finding placed on its item, block or edge). */
  findingIndex: 0,
  /** Findings placed on their item, block or edge by those indexes (a kept finding keeps its place). */
  findingsPlaced: 0,
  /** Renders of the sidebar's item rows. */
  sidebarRows: 0,
  /** New block arrays handed to React Flow (each one runs its store's subscribers again). */
  canvasNodes: 0,
  /** Findings the validation worker sent (cloned across); the rest it said were kept. */
  findingsReceived: 0,
};
