/** QoS plans shared by the QoS tests: one engine with a class-mapped and an explicit queue. */
import type { QosPlanInput } from '../../../driver/qos/index.ts';

/** Engine 0: every arbiter armed, P0 and P5 queues by class, queue 3 with explicit values. */
export const PLAN: QosPlanInput = {
  version: 1,
  engines: [
    {
      engine: 0,
      arbiters: {
        prefetch: 'qos',
        dwrr: { enabled: true, incFactor: 5, weightInc: 1, packetMode: true },
        completion: 'qos',
        qPromotion: false,
      },
      queues: [
        { queue: 0, class: 'P0' },
        { queue: 2, class: 'P5' },
        { queue: 3, qos: { axiQos: 3, qQos: 9, weight: 200 } },
      ],
    },
  ],
};
