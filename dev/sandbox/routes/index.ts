/** Every route of the borrower API the sandbox serves. */
import type { Route } from '../router';
import { accountRoutes } from './accounts';
import { arkRoutes } from './ark';
import { borrowerAddressRoutes } from './borrowerAddress';
import { bringinRoutes } from './bringin';
import { cardRoutes } from './cards';
import { contractRoutes } from './contracts';
import { disputeRoutes } from './disputes';
import { fiatDetailsRoutes } from './fiatDetails';
import { keyRoutes } from './keys';
import { loanApplicationRoutes } from './loanApplications';
import { lifecycleRoutes } from './lifecycle';
import { miscRoutes } from './misc';
import { notificationRoutes } from './notifications';
import { notificationSettingsRoutes } from './notificationSettings';
import { offerRoutes } from './offers';
import { priceRoutes } from './prices';
import { profileRoutes } from './profiles';
import { userSettingsRoutes } from './userSettings';

export const apiRoutes: Route[] = [
	...miscRoutes,
	...accountRoutes,
	...offerRoutes,
	...contractRoutes,
	...lifecycleRoutes,
	...arkRoutes,
	...borrowerAddressRoutes,
	...fiatDetailsRoutes,
	...keyRoutes,
	...notificationRoutes,
	...loanApplicationRoutes,
	...notificationSettingsRoutes,
	...profileRoutes,
	...priceRoutes,
	...cardRoutes,
	...bringinRoutes,
	...disputeRoutes,
	...userSettingsRoutes,
];
