export { createPortal, type Portal, type PortalOptions } from './portal.js';
export { isPortalPath, PORTAL_PATH, SECURITY_HEADERS, type PortalRequest } from './http.js';
export { FORM_COOKIE, SESSION_COOKIE, DEFAULT_SESSION_POLICY, type SessionPolicy } from './session.js';
export { DEFAULT_THROTTLE_POLICY, type ThrottlePolicy } from './throttle.js';
