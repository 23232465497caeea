import type { INodePropertyOptions } from 'n8n-workflow';

import { listAreaCityTimezones } from '../validation/timezones';

/** Every IANA zone of the form Area/City, as the searchable options of a Timezone parameter. */
export function timezoneOptions(): INodePropertyOptions[] {
	return listAreaCityTimezones().map((zone) => ({ name: zone, value: zone }));
}
