import type { AccessScope } from '@kessai/db';

/**
 * Who acts on payments, as any front end resolves it from its credentials: a merchant, within one
 * of its stores or all of them (`storeId` null), in the processing mode of its credential. The
 * gateway's Principal is one; the console builds one from its session and its test/live switch.
 */
export interface PaymentsActor extends AccessScope {
  mode: 'test' | 'live';
}

/** An actor within one store: what creating a payment needs. */
export interface StoreActor extends PaymentsActor {
  storeId: string;
}

/** Metadata as the API keeps it: flat, values scalars or arrays of scalars. */
export type MetadataScalar = string | number | boolean | null;
export type Metadata = Record<string, MetadataScalar | MetadataScalar[]>;

/** A scope within one store: its merchant and that store (a token's, a charge's). */
export interface StoreScope extends AccessScope {
  storeId: string;
}

/** The scope of a write on one charge: its merchant and store. */
export type ChargeScope = StoreScope;
