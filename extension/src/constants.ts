/**
 * Names shared by the Sprint extension's parts and its installer. The native host name must match the host manifest the installer
 * writes (extension/install/) and what the service worker connects to.
 */

/** chrome.runtime.connectNative name; also the host manifest's file name (`<name>.json`). */
export const HOST_NAME = 'org.sprint.socket_host';
