/**
 * The dash.js internals Sprint's loader hook (player/dash/loader-hook.ts)
 * relies on, checked against the installed package so an upgrade that moves
 * them turns this red before any e2e run: the pinned version, the XHRLoader
 * factory name and its load(request, response) contract with the customData
 * callbacks, the response-interceptor step that runs after request timing is
 * set and before the HTTP metric, and the trace-based throughput sample;
 * likewise what the scheduler hook, the quality-switch hook and the Sprint
 * data plane rely on (the schedule loop, the init mark set at append time,
 * HTTPLoader's abort loop, the MediaSource reset after a decode error).
 */
import { readFileSync } from 'fs';
import { join } from 'path';

const root = join(__dirname, '..', '..', '..');
const dashDir = join(root, 'node_modules', 'dashjs');
const bundle = readFileSync(join(dashDir, 'dist', 'modern', 'esm', 'dash.all.debug.js'), 'utf8');

function section(start: string, length = 6000): string {
  const i = bundle.indexOf(start);
  if (i < 0) throw new Error(`dash.js bundle no longer contains ${JSON.stringify(start)}`);
  return bundle.slice(i, i + length);
}

describe('pinned dash.js', () => {
  it('is exactly 5.2.1 in package.json, the lockfile and node_modules', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    expect(pkg.dependencies.dashjs).toBe('5.2.1');
    const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
    expect(lock.packages['node_modules/dashjs'].version).toBe('5.2.1');
    expect(JSON.parse(readFileSync(join(dashDir, 'package.json'), 'utf8')).version).toBe('5.2.1');
  });

  it('XHRLoader is a factory-built class whose load() gets (request, response) and customData callbacks', () => {
    expect(bundle).toContain("XHRLoader.__dashjs_factory_name = 'XHRLoader'");
    const xhr = section('function XHRLoader() {', 2500);
    expect(xhr).toMatch(/function load\(commonMediaRequest, commonMediaResponse\)/);
    expect(xhr).toMatch(/commonMediaRequest\.customData\.abort = /);
    expect(xhr).toMatch(/customData\.onloadend/);
    expect(xhr).toMatch(/customData\.onprogress/);
  });

  it('FactoryMaker.extend with override keeps the parent and replaces its own properties', () => {
    const merge = section('function merge(classConstructor, context, args) {', 1500);
    expect(merge).toMatch(/parent: classInstance/);
    expect(merge).toMatch(/classInstance\.hasOwnProperty\(prop\)/);
  });

  it('HTTPLoader sets request dates, then runs response interceptors, then records the metric with the traces', () => {
    const end = section('const _onRequestEnd = function (aborted = false) {', 2500);
    const timing = end.indexOf('_updateRequestTimingInfo()');
    const interceptors = end.indexOf('_applyResponseInterceptors(commonMediaResponse)');
    const metric = end.indexOf('_addHttpRequestMetric(commonMediaRequest, commonMediaResponse, traces)');
    expect(timing).toBeGreaterThan(-1);
    expect(interceptors).toBeGreaterThan(timing);
    expect(metric).toBeGreaterThan(interceptors);
    // the traces array the metric uses is the one exposed on the request object
    expect(section('const _onprogress = function (event) {', 3000)).toMatch(/requestObject\.traces = traces/);
  });

  it("a manifest load is a text request of type 'MPD' whose response url becomes the base URL (what the manifest handoff answers)", () => {
    expect(bundle).toContain("HTTPRequest.MPD_TYPE = 'MPD';");
    expect(section('class TextRequest extends', 400)).toMatch(/this\.responseType = '';/);
    const loader = section('function load(url, serviceLocation = null, queryParams = null) {', 2500);
    expect(loader).toMatch(/success: function \(data, textStatus, responseURL\)/);
    expect(loader).toMatch(/if \(responseURL && responseURL !== url\) \{\s*baseUri = urlUtils\.parseBaseUrl\(responseURL\);/);
    expect(section('const _onRequestEnd = function (aborted = false) {', 3500)).toMatch(
      /config\.success\(commonMediaResponse\.data, commonMediaResponse\.statusText, commonMediaResponse\.url\)/,
    );
    // xhrWithCredentials reaches the loader as credentials 'include'; otherwise 'omit' (XHR: cookies same-origin only)
    expect(bundle).toContain("credentials: withCredentials ? 'include' : 'omit'");
    // a manifest load carries dash.js's manifest timeout; a load that ends without a 2xx status is retried
    expect(section('function _getRequestTimeout(requestObject) {', 600)).toMatch(
      /MPD_TYPE\) \{\s*return settings\.get\(\)\.streaming\.manifestRequestTimeout \|\| 0;/,
    );
    expect(section('const _onRequestEnd = function (aborted = false) {', 4000)).toMatch(
      /if \(commonMediaResponse\.status >= 200 && commonMediaResponse\.status <= 299 && hasUsableBody\) \{[\s\S]*\} else \{[\s\S]*_retriggerRequest\(\);/,
    );
    // HTTPLoader.abort drops onloadend/onprogress, then calls the loader's customData.abort
    expect(section('reqData.onloadend = reqData.onprogress = undefined;', 300)).toMatch(/if \(reqData\.abort\) \{\s*reqData\.abort\(\);/);
  });

  it('the throughput sample comes from the request traces and dates (what Sprint rewrites)', () => {
    expect(bundle).toMatch(/vo\.trequest = request\.startDate;/);
    expect(bundle).toMatch(/vo\.tresponse = request\.firstByteDate;/);
    expect(bundle).toMatch(/vo\._tfinish = request\.endDate;/);
    const xhrTp = section('function _calculateThroughputValuesForXhr(httpRequest, latencyInMs) {', 2500);
    expect(xhrTp).toMatch(/httpRequest\.trace\.reduce/);
  });
});

describe('dash.js scheduling internals the Sprint scheduler hook relies on', () => {
  it('ScheduleController exposes startScheduleTimer, setLastInitializedRepresentationId and getBufferTarget', () => {
    expect(bundle).toContain("ScheduleController.__dashjs_factory_name = 'ScheduleController'");
    const sc = section('function ScheduleController(config) {', 40000);
    const exported = sc.slice(sc.indexOf('instance = {'), sc.indexOf('instance = {') + 600);
    for (const name of [
      'startScheduleTimer',
      'clearScheduleTimer',
      'reset',
      'getStreamId',
      'setLastInitializedRepresentationId',
      'getBufferTarget',
      'getTimeToLoadDelay',
      'getType',
    ]) {
      expect(exported).toContain(name);
    }
    // the schedule loop asks the ABR at issue time
    expect(sc).toMatch(/abrController\.checkPlaybackQuality\(type, streamInfo\.id\)/);
  });

  it("the schedule loop's buffer target comes from abrController.isPlayingAtTopQuality and mediaPlayerModel.getBufferTimeDefaultUnadjusted (the train's lift)", () => {
    const sc = section('function ScheduleController(config) {', 40000);
    expect(sc).toMatch(
      /function _shouldBuffer\(\) \{[\s\S]{0,900}const bufferTarget = getBufferTarget\(\);[\s\S]{0,600}return bufferLevel \+ segmentDurationToAddToBufferLevel < bufferTarget;/,
    );
    const generic = section('function _getGenericBufferTarget() {', 1200);
    expect(generic).toMatch(/if \(abrController\.isPlayingAtTopQuality\(currentRepresentation\)\)/);
    expect(generic).toMatch(/return mediaPlayerModel\.getBufferTimeDefaultUnadjusted\(\);/);
    // StreamProcessor hands the player's own mediaPlayerModel and abrController to every ScheduleController.
    const create = section(
      'scheduleController = (0,_controllers_ScheduleController_js__WEBPACK_IMPORTED_MODULE_6__["default"])(context).create({',
      400,
    );
    expect(create).toMatch(/abrController,/);
    expect(create).toMatch(/mediaPlayerModel,/);
  });

  it("nothing but the schedule loop reads getBufferTimeDefaultUnadjusted; isPlayingAtTopQuality has one other caller, BOLA's load delay", () => {
    const sc = section('function ScheduleController(config) {', 40000);
    const calls = bundle.match(/mediaPlayerModel\.getBufferTimeDefaultUnadjusted\(\)/g) ?? [];
    const inSchedule = sc.match(/mediaPlayerModel\.getBufferTimeDefaultUnadjusted\(\)/g) ?? [];
    expect(calls.length).toBe(inSchedule.length);
    const top = bundle.match(/\.isPlayingAtTopQuality\(/g) ?? [];
    expect(top.length).toBe(2);
    expect(section('// First reduce placeholder buffer, then tell schedule controller to pause.', 700)).toMatch(
      /if \(!abrController\.isPlayingAtTopQuality\(representation\)\) \{[\s\S]{0,200}scheduleController\.setTimeToLoadDelay\(1000 \* delayS\);/,
    );
  });

  it('an ABR load delay reaches the request through the public getTimeToLoadDelay (which a train zeroes)', () => {
    const sc = section('function ScheduleController(config) {', 40000);
    expect(sc.slice(sc.indexOf('instance = {'), sc.indexOf('instance = {') + 600)).toContain('getTimeToLoadDelay');
    expect(bundle).toMatch(/request\.delayLoadingTime = new Date\(\)\.getTime\(\) \+ scheduleController\.getTimeToLoadDelay\(\);/);
  });

  it('FragmentModel announces each scheduled request before loading it, and appends are announced', () => {
    expect(bundle).toMatch(/eventBus\.trigger\(events\.FRAGMENT_LOADING_STARTED, \{\s*request: request\s*\}/);
    expect(bundle).toContain("this.BYTES_APPENDED_END_FRAGMENT = 'bytesAppendedEndFragment'");
    expect(bundle).toContain("this.FRAGMENT_LOADING_STARTED = 'fragmentLoadingStarted'");
  });

  it('a default quality switch waits for loading requests, then aborts the append queue (why completions are released one append at a time)', () => {
    const sw = section('function _prepareForDefaultQualitySwitch(newRepresentation, oldRepresentation) {', 1500);
    expect(sw).toMatch(/FRAGMENT_MODEL_LOADING/);
    const prep = section('function _defaultQualitySwitchPreparation(newRepresentation, oldRepresentation) {', 600);
    expect(prep).toMatch(/abort\(\)/);
  });
});

describe('dash.js quality-switch internals the no-drain switch (quality-switch-hook.ts) relies on', () => {
  it('a quality change reaches the public StreamProcessor.prepareQualityChange (which the hook replaces)', () => {
    expect(bundle).toContain("StreamProcessor.__dashjs_factory_name = 'StreamProcessor'");
    expect(section('function _onQualityChanged(e) {', 500)).toMatch(/stream\.prepareQualityChange\(e\)/);
    expect(section('function prepareQualityChange(e) {\n    const processor = _getProcessorByType(e.mediaType);', 300)).toMatch(
      /processor\.prepareQualityChange\(e\)/,
    );
    // StreamProcessor's public instance (its export list opens with these two)
    const exported = section('instance = {\n    checkAndHandleCompletedBuffering,\n    clearScheduleTimer,', 1200).split('}')[0] ?? '';
    for (const name of ['prepareQualityChange', 'getRepresentationController', 'getScheduleController', 'getType'])
      expect(exported).toContain(name);
    expect(bundle).toMatch(/let mediaPlayerModel = config\.mediaPlayerModel;\s*let mimeType = config\.mimeType;/);
  });

  it("dash.js's own switch: stop the loop, set the representation, then by kind: replace, abandon, fast, or wait for loading requests", () => {
    expect(section('function _prepareNonAdaptationSwitchQualityChange(e) {', 500)).toMatch(
      /clearScheduleTimer\(\);[\s\S]*representationController\.prepareQualityChange\(newRepresentation\);[\s\S]*_handleDifferentSwitchTypes\(e\);/,
    );
    const kinds = section('function _handleDifferentSwitchTypes(e) {', 1500);
    expect(kinds).toMatch(/e\.reason && e\.reason\.forceReplace/);
    expect(kinds).toMatch(/e\.reason\.forceAbandon/);
    expect(kinds).toMatch(/mediaPlayerModel\.getFastSwitchEnabled\(\)/);
    expect(kinds).toMatch(/_prepareForDefaultQualitySwitch\(newRepresentation, oldRepresentation\);\s*\}/);
    // what the default preparation does, each with nothing to do when the hook skips it
    const prep = section('function _defaultQualitySwitchPreparation(newRepresentation, oldRepresentation) {', 400);
    expect(prep).toMatch(/updateBufferTimestampOffset\(newRepresentation\)/);
    expect(prep).toMatch(/_changeCodec\(newRepresentation, oldRepresentation\)/);
    expect(section('function _changeCodec(newRepresentation, oldRepresentation) {', 900)).toMatch(
      /newRepresentation\.mimeType === oldRepresentation\.mimeType && newRepresentation\.codecFamily === oldRepresentation\.codecFamily\) \{[\s\S]{0,200}return Promise\.resolve\(\);/,
    );
    expect(section('function updateBufferTimestampOffset(voRepresentation) {', 600)).toMatch(
      /updateTimestampOffset\(voRepresentation\.mseTimeOffset\)/,
    );
    expect(section('function _defaultQualitySwitchPreparationDone() {', 500)).toMatch(
      /setShouldCheckPlaybackQuality\(false\);\s*if \(currentMediaInfo\.segmentAlignment \|\| currentMediaInfo\.subSegmentAlignment\) \{\s*scheduleController\.startScheduleTimer\(\);/,
    );
  });

  it('after a switch the schedule loop waits to be restarted, and the next segment index follows the last one requested in any representation', () => {
    expect(section('function _scheduleNextRequest() {', 900)).toMatch(
      /qualityChange = abrController\.checkPlaybackQuality\(type, streamInfo\.id\);[\s\S]{0,300}if \(!qualityChange\) \{\s*_getNextFragment\(\);/,
    );
    const sc = section('function ScheduleController(config) {', 40000);
    expect(sc.slice(sc.indexOf('instance = {'), sc.indexOf('instance = {') + 800)).toContain('setShouldCheckPlaybackQuality');
    expect(section('function _getNextFragment() {', 600)).toMatch(/currentRepresentation\.id !== lastInitializedRepresentationId/);
    expect(section('function RepresentationController(config) {', 20000)).toMatch(/function prepareQualityChange\(newRep\)/);
    expect(section('function getNextSegmentRequest(mediaInfo, representation) {', 600)).toMatch(/_getIndicesToRequest\(lastSegment\)/);
    expect(section('function _getIndicesToRequest(lastSegment) {', 1500)).toMatch(/indexToRequest: lastSegment\.index \+ 1/);
  });
});

describe("dash.js internals Sprint-x's held switch (quality-switch-hook.ts deferSwitch) relies on", () => {
  it('the ABR compares its wish with the representation in force, so a held switch is asked again at the next segment', () => {
    const check = section('function checkPlaybackQuality(type, streamId) {', 2000);
    expect(check).toMatch(
      /const currentRepresentation = streamProcessor\.getRepresentationController\(\)\?\.getCurrentCompositeRepresentation\(\);/,
    );
    expect(check).toMatch(
      /newRepresentation\.id !== currentRepresentation\.id[\s\S]{0,300}_changeQuality\(type, currentRepresentation, newRepresentation, switchRequest\.reason\);\s*return true;/,
    );
    // the change event is triggered synchronously, while the schedule loop waits for the switch preparation
    expect(section('function _changeQuality(type, oldRepresentation, newRepresentation, reason) {', 1500)).toMatch(
      /eventBus\.trigger\([^;]*QUALITY_CHANGE_REQUESTED/,
    );
    // a media request turns the ABR check back on for the next tick
    expect(section('function _mediaFragmentNeeded() {', 500)).toMatch(
      /MEDIA_FRAGMENT_NEEDED[\s\S]{0,200}shouldCheckPlaybackQuality = true;/,
    );
  });
});

describe('dash.js Resource Timing throughput (why the player turns it off: player/dash/player-defaults.ts)', () => {
  it('is on by default and matches the FIRST timing entry named like the request URL (stale for byte-range segments of one file)', () => {
    expect(section('useResourceTimingApi: true', 40)).toContain('useResourceTimingApi: true');
    const add = section('function _addResourceTimingValues(httpRequest, httpResponse) {', 1500);
    expect(add).toMatch(/if \(!settings\.get\(\)\.streaming\.abr\.throughput\.useResourceTimingApi\) \{\s*return;/);
    expect(add).toMatch(/performance\.getEntriesByType\?\.\('resource'\)/);
    expect(add).toMatch(/if \(resources\[i\]\.name === httpRequest\.url\) \{\s*resource = resources\[i\];\s*break;/);
  });
});

describe('dash.js internals reached through the adapters in player/dash/ (core-events.ts, representation-segments.ts, train-settings.ts)', () => {
  it("a buffer quota error is the core event 'quotaExceeded', triggered by the BufferController with the media type", () => {
    expect(bundle).toContain("this.QUOTA_EXCEEDED = 'quotaExceeded'");
    expect(section('function _handleAppendedError(e) {', 900)).toMatch(/_triggerEvent\([^;]*QUOTA_EXCEEDED/);
    const bc = section('function BufferController(config) {', 60000);
    expect(bc).toMatch(/function _triggerEvent\(eventType, data\) \{[\s\S]{0,200}mediaType: type/);
  });

  it("a byte-range representation's index becomes Representation.segments, each with its mediaRange", () => {
    const seg = section('function _onSegmentDataUpdated(representation, e) {', 1500);
    expect(seg).toMatch(/mediaRange: s\.mediaRange/);
    expect(seg).toMatch(/representation\.segments = segments;/);
    expect(bundle).toMatch(/segment\.mediaRange = start \+ '-' \+ end;/);
  });

  it('the settings trains turn off exist where train-settings.ts sets them', () => {
    const defaults = section('fastSwitchEnabled: null,', 30);
    expect(defaults).toContain('fastSwitchEnabled: null');
    expect(section('abandonRequestsRule: {\n            active: true,', 60)).toContain('active: true');
    // the init segment cache: off by default, and when on a cached init is appended at once, without a request
    expect(section('  function _onInitFragmentLoaded(e) {\n    if (settings.get().streaming.cacheInitSegments) {', 600)).toMatch(
      /initCache\.save\(e\.chunk\);[\s\S]*_appendToBuffer\(e\.chunk\);/,
    );
    expect(section('cacheInitSegments: false,\n', 40)).toContain('cacheInitSegments: false');
    expect(section('if (!bufferController.appendInitSegmentFromCache(e.representationId)) {', 600)).toContain('Init segment not in cache');
  });
});

describe('dash.js internals behind the init mark, aborts and MediaSource resets (scheduler-hook.ts, sprint-data-plane.ts)', () => {
  it("StreamProcessor sets the ScheduleController's initialised representation when an init segment is appended", () => {
    const appended = section('function _onBytesAppended(e) {', 900);
    expect(appended).toMatch(
      /if \(e\.segmentType === [^)]*INIT_SEGMENT_TYPE\) \{\s*const lastInitializedRepresentationId = e\.representationId;\s*scheduleController\.setLastInitializedRepresentationId\(lastInitializedRepresentationId\);/,
    );
    // the instance method the hook overrides is the one StreamProcessor calls
    const sc = section('function ScheduleController(config) {', 40000);
    expect(sc).toMatch(/function setLastInitializedRepresentationId\(value\) \{\s*lastInitializedRepresentationId = value;/);
  });

  it("HTTPLoader.abort walks its request list with forEach and each request's end takes it out of that list", () => {
    const abort = section('  function abort() {\n    retryRequests.forEach(', 1500);
    expect(abort).toMatch(/httpRequests\.forEach\(req => \{[\s\S]*reqData\.abort\(\);[\s\S]*\}\);\s*httpRequests = \[\];/);
    expect(section('const _onRequestEnd = function (aborted = false) {', 400)).toMatch(
      /httpRequests\.splice\(httpRequests\.indexOf\(commonMediaRequest\), 1\);/,
    );
  });

  it('a decode error deactivates the stream (its requests aborted first, then streamDeactivated) and reopens the MediaSource', () => {
    const decode = section('function _handleMediaErrorDecode() {', 600);
    expect(decode).toMatch(/activeStream\.deactivate\(false\);[\s\S]*_openMediaSource\(/);
    const deactivate = section('function deactivate(keepBuffers) {', 1200);
    expect(deactivate.indexOf('fragmentModel.abortRequests();')).toBeGreaterThan(-1);
    expect(deactivate.indexOf('STREAM_DEACTIVATED')).toBeGreaterThan(deactivate.indexOf('fragmentModel.abortRequests();'));
    expect(bundle).toContain("this.STREAM_DEACTIVATED = 'streamDeactivated'");
    expect(bundle).toContain("this.FRAGMENT_LOADING_ABANDONED = 'fragmentLoadingAbandoned'");
  });
});

describe('dash.js request interceptors (player/dash/request-interceptors.ts, player/dataplane/request-path.ts)', () => {
  it("MediaPlayer's add/remove go to one list, after dash.js's own CMCD interceptor, run in order on every request before its loader", () => {
    expect(
      section('function addRequestInterceptor(interceptor) {\n    customParametersModel.addRequestInterceptor(interceptor);', 200),
    ).toBeTruthy();
    expect(
      section('function removeRequestInterceptor(interceptor) {\n    customParametersModel.removeRequestInterceptor(interceptor);', 200),
    ).toBeTruthy();
    expect(section('function addRequestInterceptor(interceptor) {\n    requestInterceptors.push(interceptor);', 100)).toBeTruthy();
    expect(bundle).toContain('requestInterceptors = cmcdController.getCmcdRequestInterceptors();');
    // reduce over the list in order, each getting what the one before resolved with
    expect(section('function _applyRequestInterceptors(httpRequest) {', 500)).toMatch(
      /interceptors\.reduce\(\(prev, next\) => \{\s*return prev\.then\(request => \{\s*return next\(request\);/,
    );
    // the loader gets the request the interceptors resolved with
    expect(section('const _loadRequest = function (loader, httpRequest, httpResponse) {', 700)).toMatch(
      /_applyRequestInterceptors\(httpRequest\)\.then\(_httpRequest => \{\s*httpRequest = _httpRequest;[\s\S]*loader\.load\(httpRequest, httpResponse\);/,
    );
    // the request an interceptor sees: the CommonMediaRequest with the FragmentRequest in customData.request
    expect(bundle).toMatch(/credentials: withCredentials \? 'include' : 'omit',[\s\S]{0,200}customData: \{\s*request: requestObject\s*\}/);
    // CMCD in headers mode writes its keys into the request's headers, which the loader sends
    expect(section('function applyCmcdToRequest(request) {', 1200)).toMatch(
      /request\.url = decorated\.url;\s*request\.headers = decorated\.headers;/,
    );
    expect(bundle).toContain('const CMCD_HEADERS = "headers";');
  });
});
