// A pack file dropped anywhere on the editor opens it (as the file picker would), with an overlay
// while one is dragged over.
import { useState, type DragEvent } from 'react';

export function useFileDrop(openFile: (file: File) => void) {
  const [dragging, setDragging] = useState(false);
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    const file = e.dataTransfer.files[0];
    if (file) openFile(file);
  };
  return {
    dragging,
    handlers: {
      onDragOver: (e: DragEvent) => (e.preventDefault(), setDragging(true)),
      onDragLeave: (e: DragEvent) => e.currentTarget === e.target && setDragging(false),
      onDrop,
    },
  };
}
