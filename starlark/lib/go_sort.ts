/**
 * Go's sort.Stable (insertion-sorted blocks of 20, then SymMerge). Reproduced so that
 * `sorted` performs the same comparisons as starlark-go and reports the same error when
 * elements are not comparable (the last failing comparison wins, as in starlark-go).
 */
export interface Sortable {
  less(i: number, j: number): boolean;
  swap(i: number, j: number): void;
}

function insertionSort(d: Sortable, a: number, b: number): void {
  for (let i = a + 1; i < b; i++) {
    for (let j = i; j > a && d.less(j, j - 1); j--) d.swap(j, j - 1);
  }
}

function swapRange(d: Sortable, a: number, b: number, n: number): void {
  for (let i = 0; i < n; i++) d.swap(a + i, b + i);
}

function rotate(d: Sortable, a: number, m: number, b: number): void {
  let i = m - a, j = b - m;
  while (i !== j) {
    if (i > j) {
      swapRange(d, m - i, m, j);
      i -= j;
    } else {
      swapRange(d, m - i, m + j - i, i);
      j -= i;
    }
  }
  swapRange(d, m - i, m, i);
}

function symMerge(d: Sortable, a: number, m: number, b: number): void {
  if (m - a === 1) {
    let i = m, j = b;
    while (i < j) {
      const h = (i + j) >>> 1;
      if (d.less(h, a)) i = h + 1;
      else j = h;
    }
    for (let k = a; k < i - 1; k++) d.swap(k, k + 1);
    return;
  }
  if (b - m === 1) {
    let i = a, j = m;
    while (i < j) {
      const h = (i + j) >>> 1;
      if (!d.less(m, h)) i = h + 1;
      else j = h;
    }
    for (let k = m; k > i; k--) d.swap(k, k - 1);
    return;
  }
  const mid = (a + b) >>> 1;
  const n = mid + m;
  let start: number, r: number;
  if (m > mid) {
    start = n - b;
    r = mid;
  } else {
    start = a;
    r = m;
  }
  const p = n - 1;
  while (start < r) {
    const c = (start + r) >>> 1;
    if (!d.less(p - c, c)) start = c + 1;
    else r = c;
  }
  const end = n - start;
  if (start < m && m < end) rotate(d, start, m, end);
  if (a < start && start < mid) symMerge(d, a, start, mid);
  if (mid < end && end < b) symMerge(d, mid, end, b);
}

export function stableSort(d: Sortable, n: number): void {
  let blockSize = 20;
  let a = 0, b = blockSize;
  while (b <= n) {
    insertionSort(d, a, b);
    a = b;
    b += blockSize;
  }
  insertionSort(d, a, n);
  while (blockSize < n) {
    a = 0;
    b = 2 * blockSize;
    while (b <= n) {
      symMerge(d, a, a + blockSize, b);
      a = b;
      b += 2 * blockSize;
    }
    const m = a + blockSize;
    if (m < n) symMerge(d, a, m, n);
    blockSize *= 2;
  }
}
