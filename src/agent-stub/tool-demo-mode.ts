import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { SEARCH_MEMORY_TOOL, type BackendMessage } from '../contract/index.js';
import { lastUserMessage, type Reply, type Responder } from './responder.js';

/** How many search hits the demo reads out; a spoken answer has to stay short. */
const SPOKEN_RESULTS = 3;

// Lenient on purpose: the demo reads `type` and `text` and ignores the rest, so added fields never break it.
const ToolResult = z.object({
  results: z.array(z.object({ type: z.string(), text: z.string() })),
});

/**
 * Round one asks for `searchMemory` with the user's utterance as the query; once the conversation carries the
 * tool's answer (tool messages after the last user message), it reads out the top hits.
 */
export const toolDemoResponder: Responder = async (request) => {
  const toolMessages = toolMessagesSinceLastUser(request.messages);
  if (toolMessages.length > 0) return { content: summarise(toolMessages) };
  if (!request.tools.some((tool) => tool.name === SEARCH_MEMORY_TOOL.name)) {
    return { content: 'I cannot look that up: the service offered no searchMemory tool.' };
  }
  return askForSearch(lastUserMessage(request));
};

function askForSearch(query: string): Reply {
  return {
    content: '',
    tool_calls: [{ id: `call_${randomUUID()}`, name: SEARCH_MEMORY_TOOL.name, arguments: { query } }],
  };
}

function toolMessagesSinceLastUser(messages: BackendMessage[]): string[] {
  const contents: string[] = [];
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message = messages[i];
    if (!message || message.role === 'user') break;
    if (message.role === 'tool') contents.unshift(message.content);
  }
  return contents;
}

function summarise(toolContents: string[]): string {
  const hits: { type: string; text: string }[] = [];
  for (const content of toolContents) {
    const parsed = ToolResult.safeParse(parseJson(content));
    if (!parsed.success) return 'I could not read the memory results.';
    hits.push(...parsed.data.results);
  }
  if (hits.length === 0) return 'I found nothing in memory about that.';
  const spoken = hits.slice(0, SPOKEN_RESULTS).map((hit) => `${hit.type.replace(/_/g, ' ')}: ${hit.text}`).join('; ');
  return `From memory: ${spoken}${/[.!?]$/.test(spoken) ? '' : '.'}`;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
