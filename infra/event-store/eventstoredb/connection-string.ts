// KurrentDB connection strings, checked by the configuration (EVENTSTOREDB_URL) without loading the client.
const CONNECTION_SCHEMES = /^(kurrentdb|kurrent|kdb|esdb)(\+discover)?:\/\//;

/** Whether a connection string names a scheme the client takes: kurrentdb, kurrent, kdb or esdb, each +discover. */
export function isKurrentConnectionString(value: string): boolean {
  return CONNECTION_SCHEMES.test(value.trim());
}

/** The esdb:// and esdb+discover:// schemes as kurrentdb://; every other string unchanged. */
export function kurrentConnectionString(value: string): string {
  return value.trim().replace(/^esdb(\+discover)?:\/\//, 'kurrentdb$1://');
}
