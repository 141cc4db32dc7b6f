/** [markup] (Gitea's markup.go): how documents render. */
import { section } from './spec';

/** [markup]: line breaks as Gitea's defaults; a document's size cap (bytes) and render time limit (seconds). */
export interface MarkupSettings { enableHardLineBreakInComments: boolean; enableHardLineBreakInDocuments: boolean; maxInputSize: number; renderTimeout: number }

/** [markup]. */
export const markupSection = section<MarkupSettings>('markup', {
  ENABLE_HARD_LINE_BREAK_IN_COMMENTS: { kind: 'bool', def: 'true' },
  ENABLE_HARD_LINE_BREAK_IN_DOCUMENTS: { kind: 'bool', def: 'false' },
  MAX_INPUT_SIZE: { kind: 'int', def: '4194304', min: 1024, max: 1e9 },
  RENDER_TIMEOUT: { kind: 'duration', def: '10s', min: 1, max: 600 },
});
