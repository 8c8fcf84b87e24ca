// Builds the Sprint extension into an unpacked MV3 extension:
//   <out>/manifest.json   extension/manifest.json, checked (stable "key", file names)
//   <out>/background.js   the service worker (extension/src/worker/background.ts)
//   <out>/content.js      the content script (extension/src/content/content-script.ts)
// <out> is dist/extension/unpacked unless `--env outDir=/abs/dir` is given (tests
// build into a temp dir). Load it in chrome://extensions → Developer mode → Load unpacked.
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');

/** Emits manifest.json after checking that it names the files this build produces. */
class ManifestPlugin {
  apply(compiler) {
    const { RawSource } = compiler.webpack.sources;
    compiler.hooks.thisCompilation.tap('SprintManifest', (compilation) => {
      compilation.hooks.processAssets.tap(
        { name: 'SprintManifest', stage: compiler.webpack.Compilation.PROCESS_ASSETS_STAGE_ADDITIONAL },
        () => {
          const file = path.join(__dirname, 'manifest.json');
          compilation.fileDependencies.add(file);
          const manifest = JSON.parse(fs.readFileSync(file, 'utf8'));
          const problems = [];
          if (manifest.manifest_version !== 3) problems.push('manifest_version must be 3');
          if (typeof manifest.key !== 'string') problems.push('"key" is missing: the extension ID would not be stable');
          if (manifest.background?.service_worker !== 'background.js') problems.push('background.service_worker must be background.js');
          if (JSON.stringify(manifest.content_scripts?.[0]?.js) !== '["content.js"]')
            problems.push('content_scripts[0].js must be ["content.js"]');
          if (problems.length) {
            compilation.errors.push(new compiler.webpack.WebpackError(`extension/manifest.json: ${problems.join('; ')}`));
            return;
          }
          // one version for the whole project: package.json's
          manifest.version = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version;
          compilation.emitAsset('manifest.json', new RawSource(`${JSON.stringify(manifest, null, 2)}\n`));
        },
      );
    });
  }
}

module.exports = (env = {}) => ({
  mode: env.mode === 'development' ? 'development' : 'production',
  context: root,
  devtool: 'source-map',
  target: ['web', 'es2022'],
  entry: {
    background: './extension/src/worker/background.ts',
    content: './extension/src/content/content-script.ts',
  },
  output: {
    path: env.outDir ? path.resolve(env.outDir) : path.join(root, 'dist', 'extension', 'unpacked'),
    filename: '[name].js',
    clean: true,
  },
  optimization: { splitChunks: false, runtimeChunk: false },
  resolve: { extensions: ['.ts', '.js'] },
  module: {
    rules: [
      {
        test: /\.ts$/,
        loader: 'ts-loader',
        options: { configFile: path.join(__dirname, 'tsconfig.json') },
        exclude: /node_modules/,
      },
    ],
  },
  plugins: [new ManifestPlugin()],
  performance: { hints: false },
  stats: 'errors-warnings',
});
