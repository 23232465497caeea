import { getEventListeners } from 'node:events';

import { Admission, type Place } from '../../nodes/LendasatBorrower/transport/admission';
import { Cancellation } from '../../nodes/LendasatBorrower/transport/cancellation';

/** Lets every promise that can settle now settle. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** `count` items asking for a place, in order; `places[i]` is item i's once it has one. */
function ask(admission: Admission, limit: number, count: number) {
	const places: Array<Place | undefined | 'waiting'> = Array.from(
		{ length: count },
		() => 'waiting',
	);
	const asked = places.map((_, index) =>
		admission.enter(limit).then((place) => {
			places[index] = place;
		}),
	);
	return { places, asked };
}

/** The items that have a place. */
const admitted = (places: Array<Place | undefined | 'waiting'>) =>
	places.flatMap((place, index) => (place && place !== 'waiting' ? [index] : []));

describe("Admission: the run's items at work at once", () => {
	it('lets at most the limit work at once, the others in the order they came', async () => {
		const admission = new Admission({ now: () => 0 });
		const { places } = ask(admission, 2, 5);
		await settle();
		expect(admitted(places)).toEqual([0, 1]);
		expect([admission.inWork, admission.queued]).toEqual([2, 3]);

		(places[1] as Place).leave();
		await settle();
		expect(admitted(places)).toEqual([0, 1, 2]);
		(places[0] as Place).leave();
		(places[2] as Place).leave();
		await settle();
		expect(admitted(places)).toEqual([0, 1, 2, 3, 4]);
		expect([admission.inWork, admission.queued]).toEqual([2, 0]);
	});

	it('lets the next in while an item waits aside, and takes it back without a wait: the item under way goes on', async () => {
		const admission = new Admission({ now: () => 0 });
		const { places } = ask(admission, 1, 3);
		await settle();
		const first = places[0] as Place;

		first.stepAside();
		await settle();
		expect(admitted(places)).toEqual([0, 1]);
		expect(admission.inWork).toBe(1);
		first.stepBack();
		expect(admission.inWork).toBe(2);
		// Over the limit now: the third waits until fewer than one are at work.
		(places[1] as Place).leave();
		await settle();
		expect(admitted(places)).toEqual([0, 1]);
		first.leave();
		await settle();
		expect(admitted(places)).toEqual([0, 1, 2]);
		expect(admission.inWork).toBe(1);
	});

	it('counts each place once: leaving twice, or leaving while aside, frees no second place', async () => {
		const admission = new Admission({ now: () => 0 });
		const { places } = ask(admission, 1, 3);
		await settle();
		const first = places[0] as Place;
		first.stepAside();
		first.stepAside();
		first.leave();
		first.leave();
		first.stepBack();
		await settle();
		expect(admitted(places)).toEqual([0, 1]);
		expect(admission.inWork).toBe(1);
	});

	it('tells when an item began to wait, and nothing for an item that did not', async () => {
		let now = 1_000;
		const admission = new Admission({ now: () => now });
		const first = await admission.enter(1);
		const second = admission.enter(1);
		now = 5_000;
		first?.leave();
		expect(first?.waitedSince).toBeUndefined();
		expect((await second)?.waitedSince).toBe(1_000);
	});

	it('keeps the order when items bring different limits: a later one with a higher limit does not overtake', async () => {
		const admission = new Admission({ now: () => 0 });
		const first = await admission.enter(4);
		const narrow = admission.enter(1);
		const wide = admission.enter(4);
		const order: string[] = [];
		void narrow.then(() => order.push('narrow'));
		void wide.then(() => order.push('wide'));
		await settle();
		expect(order).toEqual([]);
		first?.leave();
		await settle();
		expect(order).toEqual(['narrow', 'wide']);
	});

	it('lets every waiting item go without a place when the run is cancelled, listening to the run once however many wait', async () => {
		const cancel = new AbortController();
		const admission = new Admission({ now: () => 0 }, new Cancellation(cancel.signal));
		const { places, asked } = ask(admission, 2, 1_000);
		await settle();
		expect(getEventListeners(cancel.signal, 'abort')).toHaveLength(1);

		cancel.abort();
		await Promise.all(asked);
		expect(admitted(places)).toEqual([0, 1]);
		expect(places.slice(2).every((place) => place === undefined)).toBe(true);
		expect(await admission.enter(2)).toBeUndefined();
		expect(admission.queued).toBe(0);
	});
});
