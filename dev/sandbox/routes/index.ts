/** Every route of the borrower API the sandbox serves. */
import type { Route } from '../router';
import { accountRoutes } from './accounts';
import { contractRoutes } from './contracts';
import { keyRoutes } from './keys';
import { lifecycleRoutes } from './lifecycle';
import { miscRoutes } from './misc';
import { notificationRoutes } from './notifications';
import { offerRoutes } from './offers';

export const apiRoutes: Route[] = [
	...miscRoutes,
	...accountRoutes,
	...offerRoutes,
	...contractRoutes,
	...lifecycleRoutes,
	...keyRoutes,
	...notificationRoutes,
];
