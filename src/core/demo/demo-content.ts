import { ATLAS } from './atlas.js';
import type { DemoDeploymentContent } from './demo-model.js';
import { JUNIPER } from './juniper.js';

/**
 * The two demo teammates, in provisioning order: Atlas (product and engineering, Teams) and Juniper (customer
 * success and sales, Zoom). Both talk about renewals, so isolation tests have a shared word to search for.
 */
export const DEMO_DEPLOYMENTS: readonly DemoDeploymentContent[] = [ATLAS, JUNIPER];
