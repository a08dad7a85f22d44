// The projectors live in @pressroom/core (libs/core/src/projections): the ops CLI rebuilds views
// with them and standalone runs them in-process. This app runs them against the distributed log.
export {
  startStatusProjector,
  rebuildStatusView,
  startTemplateProjector,
  rebuildTemplateView,
  startCatalogProjector,
  startAssetProjector,
  type StatusProjectorDeps,
  type TemplateProjectorDeps,
  type CatalogProjectorDeps,
  type AssetProjectorDeps,
} from '@pressroom/core';
