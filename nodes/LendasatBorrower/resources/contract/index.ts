import type { INodeProperties } from 'n8n-workflow';

import { arkCollateralFields } from './arkCollateral';
import { contractBroadcastArkClaimOperation } from './broadcastArkClaim';
import { contractBroadcastClaimOperation } from './broadcastClaim';
import { contractBroadcastRecoveryOperation } from './broadcastRecovery';
import { contractCancelOperation } from './cancel';
import { collateralFields } from './collateral';
import { contractCreateFields, contractCreateOperation } from './create';
import { contractCreateBtcInvoiceOperation } from './createBtcInvoice';
import { contractExtendFields, contractExtendOperation } from './extend';
import { contractFinishArkSettlementOperation } from './finishArkSettlement';
import { contractGetOperation } from './get';
import { contractGetAllFields, contractGetAllOperation } from './getAll';
import { contractGetArkClaimPsbtsOperation } from './getArkClaimPsbts';
import { contractGetArkSettlementOperation } from './getArkSettlement';
import { contractGetClaimPsbtOperation } from './getClaimPsbt';
import { borrowerEventFields } from './borrowerEvents';
import { contractGetEventsFields, contractGetEventsOperation } from './getEvents';
import {
	contractGetNewEventsFields,
	contractGetNewEventsNotice,
	contractGetNewEventsOperation,
} from './getNewEvents';
import { contractGetHealthFields, contractGetHealthOperation } from './getHealth';
import { contractGetRecoveryPsbtOperation } from './getRecoveryPsbt';
import {
	contractReportBtcInvoicePaidFields,
	contractReportBtcInvoicePaidOperation,
} from './reportBtcInvoicePaid';
import { contractReportRepaymentFields, contractReportRepaymentOperation } from './reportRepayment';
import { contractSendFiatDetailsFields, contractSendFiatDetailsOperation } from './sendFiatDetails';
import { contractIdField, contractSimplifyField } from './shared';
import {
	contractUpdateBorrowerAddressFields,
	contractUpdateBorrowerAddressOperation,
} from './updateBorrowerAddress';

export const contractDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['contract'] } },
		options: [
			contractBroadcastArkClaimOperation,
			contractBroadcastClaimOperation,
			contractBroadcastRecoveryOperation,
			contractCancelOperation,
			contractCreateOperation,
			contractCreateBtcInvoiceOperation,
			contractExtendOperation,
			contractFinishArkSettlementOperation,
			contractGetOperation,
			contractGetArkClaimPsbtsOperation,
			contractGetArkSettlementOperation,
			contractGetClaimPsbtOperation,
			contractGetHealthOperation,
			contractGetEventsOperation,
			contractGetAllOperation,
			contractGetNewEventsOperation,
			contractGetRecoveryPsbtOperation,
			contractReportBtcInvoicePaidOperation,
			contractReportRepaymentOperation,
			contractSendFiatDetailsOperation,
			contractUpdateBorrowerAddressOperation,
		],
		default: 'create',
	},
	...contractCreateFields,
	contractIdField,
	...contractExtendFields,
	...contractReportRepaymentFields,
	...contractReportBtcInvoicePaidFields,
	...collateralFields,
	...arkCollateralFields,
	...contractUpdateBorrowerAddressFields,
	...contractSendFiatDetailsFields,
	...contractGetAllFields,
	...contractGetEventsFields,
	contractGetNewEventsNotice,
	...borrowerEventFields(),
	...contractGetNewEventsFields,
	...contractGetHealthFields,
	contractSimplifyField,
];
