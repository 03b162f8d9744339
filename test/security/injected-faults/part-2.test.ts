import { describeFaultSteps } from './steps';

// A database fault at every step of every operation (./steps.ts): the odd-numbered scenarios, and the redemption checks.
describeFaultSteps(1);
