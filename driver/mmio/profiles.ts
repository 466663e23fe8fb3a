/**
 * Device profiles (which UDMA units sit where in a device's BAR) are hardware vocabulary and live
 * in csr/profiles.ts, shared by the mock and the mapped back end; re-exported here for the
 * driver's API.
 */
export * from '../../csr/profiles.ts';
