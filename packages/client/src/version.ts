import { version } from '../package.json';

/** This package's version (sent in `User-Agent`, printed by `tron-safety --version`). */
export const CLIENT_VERSION: string = version;
