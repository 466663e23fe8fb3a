/** Shared fixtures of the DGE descriptor tests: one descriptor of each type and the hex helpers. */
import {
  ComputeOp,
  DgeDtype,
  IndirectSide,
  NO_BOUND_CHECK,
  boundCheck,
  type Direct2D,
  type Direct2DXpose,
  type GatherXpose,
  type Indirect1D,
} from '../../../csr/formats/dge-desc.ts';
export const hexOf = (b: Uint8Array) => Buffer.from(b).toString('hex');
export const le16 = (v: number) => hexOf(new Uint8Array(new Uint16Array([v]).buffer));
export const le32 = (v: number) => hexOf(new Uint8Array(new Int32Array([v]).buffer));
export const le64 = (v: number) => le32((v % 2 ** 32) | 0) + le32(Math.floor(v / 2 ** 32));

export const direct2d: Direct2D = {
  kind: 'DIRECT2D',
  compute_op: ComputeOp.ADD,
  dtype: DgeDtype.FP32,
  elem_size: 4,
  sem_num: -1,
  priority_class: 3,
  src_bound_check: NO_BOUND_CHECK,
  dst_bound_check: boundCheck(5),
  src_addr: 0x1000,
  dst_addr: 0x2000,
  src_num_elem: [4, 2],
  dst_num_elem: [8, 1],
  src_step_elem: [1, 4],
  dst_step_elem: [1, -8],
};

export const xpose: Direct2DXpose = {
  kind: 'DIRECT2D_XPOSE',
  dtype: DgeDtype.BF16,
  elem_size: 2,
  sem_num: 7,
  priority_class: 4,
  src_bound_check: NO_BOUND_CHECK,
  dst_bound_check: NO_BOUND_CHECK,
  src_addr: 0x10_0000_0000,
  dst_addr: 0x20_0000,
  src_num_elem: [128, 16],
  dst_num_elem: [16, 128],
  src_step_elem: [1, 128],
  dst_step_elem: [1, 16],
};

export const indirect: Indirect1D = {
  kind: 'INDIRECT1D',
  indirect_side: IndirectSide.GATHER,
  dtype: DgeDtype.RAW,
  elem_size: 3,
  sem_num: 0,
  src_addr: 0x4000,
  dst_addr: 0x8000,
  idx_addr: 0xc000,
  num_idx: 100,
  row_num_elem: 10,
  src_step_elem: 30,
  dst_step_elem: -10,
  idx_limit: 64,
  src_bound_check: boundCheck(1, true, true),
  priority_class: 1,
  dst_bound_check: NO_BOUND_CHECK,
};

export const gather: GatherXpose = {
  kind: 'GATHER_XPOSE',
  dtype: DgeDtype.FP16,
  elem_size: 2,
  sem_num: 2,
  num_idx: 32,
  src_bound_check: NO_BOUND_CHECK,
  priority_class: 2,
  dst_bound_check: NO_BOUND_CHECK,
  src_addr: 0x100000,
  dst_addr: 0x200020,
  idx_addr: 0x300000,
  row_num_elem: 128,
  src_step_elem: 256,
  dst_step_elem: 32,
  idx_limit: 0,
};
