// A pack file's text: decoded as UTF-8, or refused with its encoding named when it is UTF-16 or
// UTF-32 (core's encodingProblem, the same words the CLI uses), rather than opened as invalid JSON.
import { encodingProblem } from '@setup-pack/core';

export async function packFileText(file: Blob): Promise<{ text: string } | { error: string }> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  const wrong = encodingProblem(bytes.subarray(0, 4));
  // TextDecoder drops a UTF-8 byte order mark, as File.text() does.
  return wrong ? { error: wrong } : { text: new TextDecoder().decode(bytes) };
}
