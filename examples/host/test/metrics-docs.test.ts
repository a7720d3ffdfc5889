import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HostMetrics } from '../src/ops/metrics.js';
import { readmeSection } from './readme.js';

test("the README's Operations section names exactly the host's own metrics, each with its labels", async () => {
  const documented = [...readmeSection('Operations').matchAll(/`(tron_safety_[a-z_]+)(?:\{([a-z_,]+)\})?`/g)].map(
    ([, name, labels]) => `${name}{${labels ?? ''}}`,
  );
  const metrics = new HostMetrics({ checksInFlight: () => 0, reservationsOutstanding: () => 0, data: () => null });
  const emitted = (await metrics.registry.getMetricsAsJSON())
    .filter((metric) => metric.name.startsWith('tron_safety_'))
    .map((metric) => {
      // prom-client keeps each metric's declared label names on the metric object itself.
      const labelNames = (metrics.registry.getSingleMetric(metric.name) as unknown as { labelNames: string[] })
        .labelNames;
      return `${metric.name}{${labelNames.join(',')}}`;
    });
  assert.deepEqual([...new Set(documented)].sort(), emitted.sort());
});
