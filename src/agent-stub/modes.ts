import { cannedResponder, type CannedReplies } from './canned-mode.js';
import { forwardResponder, type ForwardTarget } from './forward-mode.js';
import { lastUserMessage, type Responder } from './responder.js';
import { toolDemoResponder } from './tool-demo-mode.js';

/** How the stub answers: echo (default), canned replies, the searchMemory demo, or an OpenAI-compatible model. */
export type StubMode =
  | { kind: 'echo' }
  | { kind: 'canned'; replies: CannedReplies }
  | { kind: 'tool-demo' }
  | { kind: 'forward'; target: ForwardTarget };

/** Builds the responder of a mode. */
export function createResponder(mode: StubMode): Responder {
  switch (mode.kind) {
    case 'echo':
      return async (request) => ({ content: `You said: ${lastUserMessage(request)}` });
    case 'canned':
      return cannedResponder(mode.replies);
    case 'tool-demo':
      return toolDemoResponder;
    case 'forward':
      return forwardResponder(mode.target);
  }
}
