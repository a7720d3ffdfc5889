export { decode, formatDecodeError, type DecodeError } from './decode.js';
