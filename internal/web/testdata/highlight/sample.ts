import { h } from 'preact';
@Component({ selector: 'x' })
export class Foo<T> implements Bar {
  private readonly n: number = 1_000;
  async load(id: string): Promise<T | null> {
    const url = `/api/${id}?x=${n}`; // comment
    if (this.n > 2 && id !== 'a') return null;
    /* block
       comment */
    return await fetch(url).then((r) => r.json() as T);
  }
}
const re = /ab+c/g, half = .5;
