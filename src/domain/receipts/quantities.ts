/** An order line's quantities, and what it still expects. */
export interface LineQuantities {
  quantity: number;
  received_quantity: number;
  cancelled_quantity: number;
}

export function outstanding(line: LineQuantities): number {
  return Math.max(0, line.quantity - line.received_quantity - line.cancelled_quantity);
}
