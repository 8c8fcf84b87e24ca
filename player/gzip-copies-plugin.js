// A webpack plugin that writes a gzip copy beside each built script
// (sprint.js → sprint.js.gz), byte-for-byte the final file compressed at
// level 9. The demo origin sends the copy to browsers that accept gzip
// (demo/server/routes.ts) and nginx does the same with `gzip_static`: the
// player bundle is 930 KB as written and about 270 KB compressed, and every
// start behind a full bottleneck queue waits for it.
const zlib = require('zlib');

class GzipCopiesPlugin {
  /** @param {RegExp} test the asset names to copy */
  constructor(test = /\.m?js$/) {
    this.test = test;
  }

  apply(compiler) {
    const { Compilation, sources } = compiler.webpack;
    compiler.hooks.thisCompilation.tap('GzipCopiesPlugin', (compilation) => {
      compilation.hooks.processAssets.tap(
        // after minification and the source-map comment: the copy is of the file as written
        { name: 'GzipCopiesPlugin', stage: Compilation.PROCESS_ASSETS_STAGE_OPTIMIZE_TRANSFER },
        (assets) => {
          for (const name of Object.keys(assets)) {
            if (!this.test.test(name)) continue;
            const bytes = compilation.getAsset(name).source.buffer();
            compilation.emitAsset(`${name}.gz`, new sources.RawSource(zlib.gzipSync(bytes, { level: 9 })));
          }
        },
      );
    });
  }
}

module.exports = { GzipCopiesPlugin };
