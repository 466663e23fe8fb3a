/**
 * QoS plans for property tests, shaped like the format: `generatedPlan` with values at and just
 * past every limit, engine ids the mock has (ENGINES) and some it lacks, a wrong version now and
 * then; `inRangePlan` with every value in range, on the engines the mock has.
 */
import fc from 'fast-check';
import { DMA_QOS_CLASS_NAMES } from '../../csr/formats/qos-class.ts';
import { QOS_LIMITS } from '../../driver/qos/index.ts';

/** Engines the mock creates; plans may also name others of the profile, or ids it lacks. */
export const ENGINES = [0, 1, 2, 3];

/** The plan arbitrary; `past`: values just past the limits too, and engine ids the mock lacks. */
function plans(past: boolean) {
  const u = (max: number) =>
    past
      ? fc.oneof(
          { weight: 4, arbitrary: fc.integer({ min: 0, max }) },
          fc.constantFrom(max + 1, -1),
        )
      : fc.integer({ min: 0, max });
  const queueArb = fc.record(
    {
      queue: u(QOS_LIMITS.queues - 1),
      class: fc.constantFrom(...DMA_QOS_CLASS_NAMES),
      qos: fc.record(
        {
          axiQos: u(QOS_LIMITS.axiQos),
          qQos: u(QOS_LIMITS.qQos),
          weight: u(QOS_LIMITS.weight),
          highPriority: fc.boolean(),
        },
        { requiredKeys: [] },
      ),
      s2mAxiQos: u(QOS_LIMITS.s2mAxiQos),
      rateLimit: fc.record(
        { enabled: fc.boolean(), maxBurst: u(QOS_LIMITS.queueMaxBurst), pause: fc.boolean() },
        { requiredKeys: ['enabled'] },
      ),
    },
    { requiredKeys: ['queue'] },
  );
  const engineArb = fc.record(
    {
      engine: fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom(...ENGINES) },
        {
          weight: 2,
          arbitrary: fc.uniqueArray(fc.constantFrom(...ENGINES), { minLength: 1, maxLength: 3 }),
        },
        { weight: past ? 1 : 0, arbitrary: fc.constantFrom(5, 64, 131, 132, 1000, -1) },
      ),
      arbiters: fc.record(
        {
          prefetch: fc.constantFrom('rr', 'qos'),
          s2mPrefetch: fc.constantFrom('rr', 'qos'),
          dwrr: fc.oneof(
            fc.constantFrom('on', 'off'),
            fc.record(
              {
                enabled: fc.boolean(),
                incFactor: u(QOS_LIMITS.incFactor),
                weightInc: u(QOS_LIMITS.weightInc),
                packetMode: fc.boolean(),
              },
              { requiredKeys: ['enabled'] },
            ),
          ),
          completion: fc.constantFrom('rr', 'qos'),
          qPromotion: fc.boolean(),
        },
        { requiredKeys: [] },
      ),
      rateLimit: fc.record(
        {
          shortCycleSize: u(QOS_LIMITS.shortCycleSize),
          packetMode: fc.boolean(),
          stream: fc.record(
            { enabled: fc.boolean(), maxBurst: u(QOS_LIMITS.streamMaxBurst), pause: fc.boolean() },
            { requiredKeys: ['enabled'] },
          ),
        },
        { requiredKeys: [] },
      ),
      queues: past
        ? fc.array(queueArb, { maxLength: 6 })
        : fc
            .uniqueArray(queueArb, { maxLength: 6, selector: (q) => q.queue })
            .map((qs) => qs.map(({ qos, ...q }) => ('class' in q ? q : { ...q, qos }))),
    },
    { requiredKeys: ['engine'] },
  );
  return fc.record({
    version: fc.oneof(
      { weight: 9, arbitrary: fc.constant(1) },
      { weight: past ? 1 : 0, arbitrary: fc.constant(2) },
    ),
    engines: past
      ? fc.array(engineArb, { minLength: 1, maxLength: 3 })
      : fc.uniqueArray(engineArb, {
          minLength: 1,
          maxLength: 3,
          selector: (e) => (Array.isArray(e.engine) ? -1 : e.engine),
        }),
  });
}

export const generatedPlan = plans(true);
export const inRangePlan = plans(false);
