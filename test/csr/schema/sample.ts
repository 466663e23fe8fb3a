/** The register-file document the schema tests mutate. */

/** A small valid register file: one repeated bundle, one single bundle, one top-level register. */
export function sample() {
  return {
    RegFile: {
      Name: 'sample',
      Description: 'test file',
      SizeInBytes: 0x400,
      Registers: [
        {
          Name: 'top',
          AddressOffset: '0x3f0',
          Description: 'top-level',
          Fields: [
            {
              Name: 'a',
              Bits: '7:0',
              Access: 'RW',
              ResetValue: '0x1',
              Description: '',
              Provenance: 'seed',
            },
          ],
        },
      ],
      RegistersBundleArrays: [
        {
          Name: 'Q',
          Description: 'queues',
          AddressOffset: '0x100',
          ArraySize: 4,
          BundleSizeInBytes: 0x40,
          Provenance: 'seed',
          Registers: [
            {
              Name: 'cfg',
              AddressOffset: '0x0',
              Description: 'cfg',
              Fields: [
                {
                  Name: 'lo',
                  Bits: '7:0',
                  Access: 'RW',
                  ResetValue: '0x40',
                  Description: '',
                  Provenance: 'seed',
                },
                {
                  Name: 'hi',
                  Bits: '31:28',
                  Access: 'RW',
                  ResetValue: 'unknown',
                  Description: '',
                  Provenance: 'public',
                },
              ],
            },
            {
              Name: 'tail_inc',
              AddressOffset: '0x8',
              Description: 'doorbell',
              IncrementTarget: 'tail.offset',
              Fields: [
                {
                  Name: 'val',
                  Bits: '23:0',
                  Access: 'INC',
                  ResetValue: 'unknown',
                  Description: '',
                  Provenance: 'public',
                },
              ],
            },
            {
              Name: 'tail',
              AddressOffset: '0xc',
              Description: 'tail',
              Fields: [
                {
                  Name: 'offset',
                  Bits: '23:0',
                  Access: 'RO',
                  ResetValue: 'unknown',
                  Description: '',
                  Provenance: 'public',
                },
              ],
            },
          ],
        },
        {
          Name: 'ENG',
          Description: 'engine',
          AddressOffset: '0x0',
          ArraySize: 1,
          BundleSizeInBytes: 0x100,
          Provenance: 'inferred',
          Registers: [
            {
              Name: 'version',
              AddressOffset: '0x4',
              Description: 'whole word',
              Access: 'RO',
              Provenance: 'public',
              Fields: [],
            },
          ],
        },
      ],
    },
  };
}

export type Doc = ReturnType<typeof sample>;
