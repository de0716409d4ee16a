import { loadContract, requestExample } from '../../../contract';

/** The contract derived into the repository; tests never read the reference folder. */
export function spec(): any {
  return loadContract();
}

export function exampleOf(path: string, name = 'ExamplePayload'): any {
  return requestExample(path, 'post', name);
}
