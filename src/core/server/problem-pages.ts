import type { FastifyInstance } from 'fastify';
import { PROBLEM_TYPES, type ProblemSlug } from '../../contract/index.js';
import { HttpProblem } from './problem.js';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function page(slug: ProblemSlug): string {
  const problem = PROBLEM_TYPES[slug];
  const guidance = escapeHtml(problem.guidance).replace(/`([^`]+)`/g, '<code>$1</code>');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${problem.status} ${escapeHtml(problem.title)}</title></head>
<body><h1>${problem.status} ${escapeHtml(problem.title)}</h1><p>${guidance}</p>
<p>Clients match on the status code, never on the wording, which can change.</p></body></html>
`;
}

/** Serves the page behind every problem document's `type`, so a developer who follows the link learns what to do. */
export function registerProblemPages(app: FastifyInstance): void {
  app.get<{ Params: { slug: string } }>('/v1/problems/:slug', async (request, reply) => {
    const slug = request.params.slug;
    if (!Object.hasOwn(PROBLEM_TYPES, slug)) throw new HttpProblem('not-found', 'No such problem type.');
    return reply.type('text/html; charset=utf-8').send(page(slug as ProblemSlug));
  });
}
