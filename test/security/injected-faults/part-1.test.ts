import { describeFaultSteps } from './steps';

// A database fault at every step of every operation (./steps.ts): the even-numbered scenarios.
describeFaultSteps(0);
