import { getEventListeners } from 'node:events';

import { Cancellation } from '../../nodes/LendasatBorrower/transport/cancellation';
import { stopAt } from '../../nodes/LendasatBorrower/transport/clock';
import { VirtualClock } from '../helpers/virtualClock';

describe("Cancellation: a run's cancel signal, heard once", () => {
	it('tells every hearer once when the run is cancelled, with one listener on the signal however many hear', () => {
		const run = new AbortController();
		const cancellation = new Cancellation(run.signal);
		const heard: number[] = [];
		for (let hearer = 0; hearer < 50; hearer++) cancellation.onCancel(() => heard.push(hearer));
		expect(getEventListeners(run.signal, 'abort')).toHaveLength(1);
		expect(cancellation.aborted).toBe(false);

		run.abort();
		expect(cancellation.aborted).toBe(true);
		expect(heard).toEqual(Array.from({ length: 50 }, (_, hearer) => hearer));
	});

	it('does not tell a hearer that was taken back, and tells each of two that bring the same function', () => {
		const run = new AbortController();
		const cancellation = new Cancellation(run.signal);
		const heard: string[] = [];
		const hear = () => heard.push('heard');
		const takeBack = cancellation.onCancel(() => heard.push('taken back'));
		cancellation.onCancel(hear);
		cancellation.onCancel(hear);
		takeBack();
		run.abort();
		expect(heard).toEqual(['heard', 'heard']);
	});

	it('tells a hearer at once when the run is already cancelled, and never without a signal', () => {
		const heard: string[] = [];
		new Cancellation(AbortSignal.abort()).onCancel(() => heard.push('cancelled'));
		const never = new Cancellation();
		never.onCancel(() => heard.push('never'));
		expect(never.aborted).toBe(false);
		expect(heard).toEqual(['cancelled']);
	});
});

describe('stopAt: a wait ended by its deadline or by the run', () => {
	it('stops at the deadline on the clock it is given', async () => {
		const clock = new VirtualClock();
		let stoppedAt: number | undefined;
		stopAt(clock.asClock(), 1_500)(() => (stoppedAt = clock.now));
		await clock.run(() => stoppedAt !== undefined);
		expect(stoppedAt).toBe(1_500);
	});

	it('stops when the run is cancelled, once, and hears nothing more', async () => {
		const clock = new VirtualClock();
		const run = new AbortController();
		const stops: number[] = [];
		stopAt(clock.asClock(), 1_500, new Cancellation(run.signal))(() => stops.push(clock.now));
		await clock.run(() => false, 100);
		run.abort();
		await clock.run(() => false);
		expect(stops).toEqual([100]);
	});

	it('stops at once when the run is already cancelled', () => {
		const stops: string[] = [];
		stopAt(
			new VirtualClock().asClock(),
			Infinity,
			new Cancellation(AbortSignal.abort()),
		)(() => stops.push('stopped'));
		expect(stops).toEqual(['stopped']);
	});

	it('no longer stops once unwatched: neither the deadline nor the run', async () => {
		const clock = new VirtualClock();
		const run = new AbortController();
		const stops: string[] = [];
		const unwatch = stopAt(
			clock.asClock(),
			1_500,
			new Cancellation(run.signal),
		)(() => stops.push('stopped'));
		unwatch();
		run.abort();
		await clock.run(() => false);
		expect(stops).toEqual([]);
	});
});
