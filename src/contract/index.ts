export * from './records.js';
export * from './params.js';
export * from './operations.js';
export * from './problems.js';
export * from './agent-backend.js';
export * from './plain-object.js';
